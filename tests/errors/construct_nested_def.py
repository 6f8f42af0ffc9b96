# expect: 7:20: error: unknown name 'scale'
import numpy as np


def k(x: "f32[M, N]"):
    def inner(t):
        return t * scale
    scale = 2.0
    return inner(x)
