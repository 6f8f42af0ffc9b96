# expect: 6:22: error: invalid einsum subscript '1' in 'ij,j1->i1'
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.einsum("ij,j1->i1", a, b)
