# expect: 6:22: error: np.maximum() missing required argument 'x2'
import numpy as np


def k(x: "f32[M, N]"):
    return np.maximum(x)
