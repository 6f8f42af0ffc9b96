# expect: 6:12: error: cannot unpack 3 values into 2 names
import numpy as np


def k(x: "f32[M, N]"):
    a, b = x, x * 2.0, x * 3.0
    return a + b
