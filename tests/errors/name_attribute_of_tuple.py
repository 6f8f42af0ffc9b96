# expect: 6:20: error: a tuple of 2 has no attribute 'count'
import numpy as np


def k(x: "f32[M, N]"):
    return x.shape.count(1)
