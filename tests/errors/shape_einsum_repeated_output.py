# expect: 6:22: error: einsum output subscript 'i' repeated
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.einsum("ij,jk->ii", a, b)
