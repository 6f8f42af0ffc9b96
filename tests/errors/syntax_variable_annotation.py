# expect: 6:6: error: variable annotations are not supported inside a kernel
import numpy as np


def k(x: "f32[M, N]"):
    y: "f32[M, N]" = x + 1.0
    return y
