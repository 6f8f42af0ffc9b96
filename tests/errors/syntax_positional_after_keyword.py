# expect: 6:30: error: positional argument follows keyword argument
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=0, True)
