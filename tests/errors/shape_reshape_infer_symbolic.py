# expect: 6:21: error: cannot reshape f32[M, N] to [-1, 7]: the -1 dimension is not a whole number of elements
import numpy as np


def k(x: "f32[M, N]"):
    return x.reshape(-1, 7)
