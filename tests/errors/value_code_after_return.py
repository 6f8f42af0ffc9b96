# expect: 7:5: error: code after 'return' is never run
import numpy as np


def k(x: "f32[M, N]"):
    return x
    y = x + 1.0
