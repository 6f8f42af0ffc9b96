# expect: 6:26: error: concatenate: the tensors must have the same rank, but f32[M, 3] has rank 2 and f32[M] has rank 1
import numpy as np


def k(a: "f32[M, 3]", b: "f32[M]"):
    return np.concatenate([a, b], axis=0)
