# expect: 5:23: error: duplicate parameter 'x'
import numpy as np


def k(x: "f32[M, N]", x: "f32[M, N]"):
    return x
