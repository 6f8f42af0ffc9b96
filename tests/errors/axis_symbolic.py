# expect: 6:22: error: an axis must be a constant integer, not the size M
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=x.shape[0])
