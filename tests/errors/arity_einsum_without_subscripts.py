# expect: 6:21: error: np.einsum needs a subscripts string as its first argument
import numpy as np


def k(x: "f32[M, N]"):
    return np.einsum(x)
