# expect: 6:12: error: '&' needs booleans, not a tensor f32[M, N]: NumPy's '&' on float tensors is a bitwise operation with no meaning for floats; it combines masks such as (x > 0) & (y < 1), or use np.logical_and (nonzero is true)
import numpy as np


def k(x: "f32[M, N]"):
    return x & x
