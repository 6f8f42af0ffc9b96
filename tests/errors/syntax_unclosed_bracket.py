# expect: 6:13: error: '[' is never closed
import numpy as np


def k(x: "f32[M, N]"):
    return x[0, :
