# expect: 7:12: error: unknown name 'y'
import numpy as np


def k(x: "f32[M, N]"):
    z = x + 1.0
    return y
