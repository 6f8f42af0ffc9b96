# expect: 6:22: error: np.sum() got an unexpected keyword argument 'axes'
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axes=0)
