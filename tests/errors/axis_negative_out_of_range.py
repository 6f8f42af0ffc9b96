# expect: 6:18: error: axis -3 is out of bounds for a tensor of rank 2
import numpy as np


def k(x: "f32[M, N]"):
    return x.max(axis=-3)
