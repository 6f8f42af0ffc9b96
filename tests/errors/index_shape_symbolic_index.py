# expect: 6:27: error: a tuple index must be a constant integer or a simple slice
import numpy as np


def k(x: "f32[M, N]"):
    return x.shape[x.shape[0]]
