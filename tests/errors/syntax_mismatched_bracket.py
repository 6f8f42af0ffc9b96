# expect: 6:17: error: closing ']' does not match '(' at line 6, column 9
import numpy as np


def k(x: "f32[M, N]"):
    y = (x + 1.0]
    return y
