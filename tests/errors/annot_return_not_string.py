# expect: 5:29: error: a return annotation must be a string such as "f32[M, N]" or a tuple of them
import numpy as np


def k(x: "f32[M, N]") -> np.ndarray:
    return x
