# expect: 6:15: error: '(' is never closed
import numpy as np


def k(x: "f32[M, N]"):
    y = np.exp(x + 1.0
    return y
