# expect: 6:12: error: cannot unpack a tensor f32[M, N] into 2 names
import numpy as np


def k(x: "f32[M, N]"):
    a, b = x
    return a + b
