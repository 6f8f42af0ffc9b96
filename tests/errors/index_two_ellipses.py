# expect: 6:14: error: an index can only have a single '...'
import numpy as np


def k(x: "f32[M, N]"):
    return x[..., 0, ...]
