# expect: 6:14: error: conditional expressions are not supported; use np.where
import numpy as np


def k(x: "f32[M, N]"):
    return x if x.shape[0] > 1 else -x
