# expect: 6:17: error: expected end of line, found 'z'
import numpy as np


def k(x: "f32[M, N]"):
    y = x + 1.0 z = y
    return z
