# expect: 6:11: error: cannot assign to this expression
import numpy as np


def k(x: "f32[M, N]"):
    np.exp(x) = 1.0
    return x
