# expect: 6:22: error: einsum subscript 'j' has size K in f32[M, K] but N in f32[N, P]
import numpy as np


def k(a: "f32[M, K]", b: "f32[N, P]"):
    return np.einsum("ij,jk->ik", a, b)
