# expect: 5:24: error: the size of 'M' must be a positive integer
import numpy as np


SIZES = {"test": {"M": 4.5, "N": 3}}


def k(x: "f32[M, N]"):
    return x
