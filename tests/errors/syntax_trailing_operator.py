# expect: 6:12: error: expected an expression, found end of line
import numpy as np


def k(x: "f32[M, N]"):
    y = x +
    return y
