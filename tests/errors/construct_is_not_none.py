# expect: 6:14: error: 'is' is only supported against None (x is None); compare values with == or !=
import numpy as np


def k(x: "f32[M, N]", scale: float = 2.0):
    if scale is 2.0:
        return x
    return -x
