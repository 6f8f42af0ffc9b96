# expect: 6:35: error: axis 2 is out of bounds for a tensor of rank 2
import numpy as np


def k(a: "f32[M, N]", b: "f32[M, N]"):
    return np.concatenate([a, b], axis=2)
