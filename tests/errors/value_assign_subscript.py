# expect: 6:6: error: assignment to part of a tensor is not supported (tensors are immutable)
import numpy as np


def k(x: "f32[M, N]"):
    x[0] = 1.0
    return x
