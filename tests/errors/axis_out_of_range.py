# expect: 6:22: error: axis 2 is out of bounds for a tensor of rank 2
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, axis=2)
