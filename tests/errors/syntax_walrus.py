# expect: 6:7: error: operator ':=' is not supported
import numpy as np


def k(x: "f32[M, N]"):
    y := x + 1.0
    return y
