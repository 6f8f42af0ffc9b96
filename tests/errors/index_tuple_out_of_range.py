# expect: 6:24: error: index 2 is out of range for a tuple of 2
import numpy as np


def k(x: "f32[M, N]"):
    return x * x.shape[2]
