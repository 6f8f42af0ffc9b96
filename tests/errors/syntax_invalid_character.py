# expect: 6:11: error: invalid character '$'
import numpy as np


def k(x: "f32[M, N]"):
    y = x $ 2.0
    return y
