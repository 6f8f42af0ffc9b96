# expect: 6:23: error: '*' argument unpacking is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.maximum(*x)
