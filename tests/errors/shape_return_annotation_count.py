# expect: 5:27: error: the return annotation declares 2 result(s) but the kernel returns 1
import numpy as np


def k(x: "f32[M, N]") -> ("f32[M, N]", "f32[M, N]"):
    return x
