# expect: 6:22: error: axis 1 is repeated
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=(1, -1))
