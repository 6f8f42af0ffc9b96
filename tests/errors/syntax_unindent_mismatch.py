# expect: 7:5: error: unindent does not match any outer indentation level
import numpy as np


def k(x: "f32[M, N]"):
        y = x + 1.0
    return y
