# expect: 6:30: error: keyword argument 'axis' repeated
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=0, axis=1)
