# expect: 6:13: error: unexpected character after line continuation '\'
import numpy as np


def k(x: "f32[M, N]"):
    y = x + \ 1.0
    return y
