# expect: 6:26: error: concatenate: f32[M, 3] and f32[M] have different ranks
import numpy as np


def k(a: "f32[M, 3]", b: "f32[M]"):
    return np.concatenate([a, b], axis=0)
