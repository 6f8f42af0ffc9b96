# expect: 6:22: error: einsum subscripts name 1 operand(s) but 2 were given
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.einsum("ij->i", a, b)
