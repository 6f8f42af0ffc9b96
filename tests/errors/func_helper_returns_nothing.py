# expect: 10:19: error: the left operand of '+' must be a tensor or a number, not None
import numpy as np


def nothing(t):
    y = t * 2.0


def k(x: "f32[M, N]"):
    return nothing(x) + 1.0
