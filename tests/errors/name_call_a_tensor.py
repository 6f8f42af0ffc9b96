# expect: 6:12: error: a tensor f32[M, N] cannot be called
import numpy as np


def k(x: "f32[M, N]"):
    return x(0)
