# expect: 6:16: error: the right operand of '+' must be a tensor or a number, not a string
import numpy as np


def k(x: "f32[M, N]"):
    return x + "1"
