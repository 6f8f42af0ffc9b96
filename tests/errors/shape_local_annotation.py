# expect: 6:8: error: the value is f32[M, N] but the annotation says f32[M, 4]
import numpy as np


def k(x: "f32[M, N]"):
    y: "f32[M, 4]" = x + 1.0
    return y
