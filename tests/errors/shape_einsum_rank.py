# expect: 6:22: error: einsum subscripts 'ijk' do not fit operand 0 of shape f32[M, K]
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.einsum("ijk,jk->ik", a, b)
