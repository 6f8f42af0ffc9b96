# expect: 6:30: error: keepdims must be True or False (or an integer such as 1), not the number 0.5
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=0, keepdims=0.5)
