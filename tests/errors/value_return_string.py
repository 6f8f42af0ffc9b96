# expect: 6:12: error: the returned value must be a tensor or a number, not a string
import numpy as np


def k(x: "f32[M, N]"):
    return "x"
