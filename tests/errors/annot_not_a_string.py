# expect: 5:13: error: kernel parameter 'x' needs a tensor annotation string such as "f32[M, N]", or int, float or bool with a default value
import numpy as np


def k(x: np.ndarray):
    return x
