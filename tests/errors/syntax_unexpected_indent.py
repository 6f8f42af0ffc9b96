# expect: 7:9: error: unexpected indentation
import numpy as np


def k(x: "f32[M, N]"):
    y = x + 1.0
        z = y * 2.0
    return z
