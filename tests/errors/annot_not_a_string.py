# expect: 5:13: error: kernel parameter 'x' needs a type annotation string such as "f32[M, N]"
import numpy as np


def k(x: np.ndarray):
    return x
