# expect: 6:14: error: too many indices: 3 for a tensor f32[M, N]
import numpy as np


def k(x: "f32[M, N]"):
    return x[0, 0, 0]
