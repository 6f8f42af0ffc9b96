# expect: 6:29: error: boolean operator 'and' is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.where(x > 0.0 and x < 1.0, x, 0.0)
