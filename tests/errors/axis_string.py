# expect: 6:22: error: an axis must be an integer, not a string
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis="rows")
