# expect: 6:14: error: indexing with a tensor is not supported (only integers, slices, None and ...)
import numpy as np


def k(x: "f32[M, N]", i: "f32[M]"):
    return x[i]
