# expect: 6:16: error: unmatched ')'
import numpy as np


def k(x: "f32[M, N]"):
    y = x + 1.0)
    return y
