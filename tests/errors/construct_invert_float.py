# expect: 7:16: error: '~' needs a boolean, not a tensor f32[M, N]: NumPy's '~' on float tensors is a bitwise operation with no meaning for floats; it negates masks such as ~(x > 0), or use np.logical_not (nonzero is true)
import numpy as np


def k(x: "f32[M, N]"):
    mask = x > 0.0
    return ~(x * mask)
