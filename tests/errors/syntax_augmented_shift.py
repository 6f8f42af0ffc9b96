# expect: 7:7: error: operator '>>=' is not supported
import numpy as np


def k(x: "f32[M, N]"):
    y = x
    y >>= 1
    return y
