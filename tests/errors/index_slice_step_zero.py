# expect: 6:14: error: slice step cannot be zero
import numpy as np


def k(x: "f32[M, N]"):
    return x[::0]
