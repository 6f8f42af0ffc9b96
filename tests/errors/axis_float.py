# expect: 6:23: error: an axis must be an integer, not the number 
import numpy as np


def k(x: "f32[M, N]"):
    return np.mean(x, axis=1.0)
