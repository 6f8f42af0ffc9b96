# expect: 6:12: error: invalid character '`'
import numpy as np


def k(x: "f32[M, N]"):
    return `x`
