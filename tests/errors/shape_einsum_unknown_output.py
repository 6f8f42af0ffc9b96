# expect: 6:22: error: einsum output subscript 'z' is not in any operand
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.einsum("ij,jk->iz", a, b)
