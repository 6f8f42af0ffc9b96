# expect: 6:24: error: np.power needs a constant exponent (x ** 3 is the same); a tensor exponent is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.power(x, x)
