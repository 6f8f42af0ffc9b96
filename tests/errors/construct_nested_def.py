# expect: 6:5: error: nested functions are not supported; define helpers at the top level
import numpy as np


def k(x: "f32[M, N]"):
    def inner(t):
        return t
    return inner(x)
