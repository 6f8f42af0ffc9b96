# expect: 6:26: error: concatenate along axis 0: shapes f32[M, 3] and f32[M, 4] differ in another axis
import numpy as np


def k(a: "f32[M, 3]", b: "f32[M, 4]"):
    return np.concatenate([a, b], axis=0)
