# expect: 6:16: error: complex numbers are not supported
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2j
