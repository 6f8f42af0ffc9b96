# expect: 6:13: error: expected an expression, found '/'
import numpy as np


def k(x: "f32[M, N]"):
    y = x * / 2.0
    return y
