# expect: 6:21: error: boolean operator 'not' is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.where(not x > 0.0, x, 0.0)
