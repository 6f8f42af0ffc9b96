# expect: 6:29: error: chained comparisons are not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.where(0.0 < x < 1.0, x, 0.0)
