# expect: 6:30: error: keepdims must be True or False
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=0, keepdims=1)
