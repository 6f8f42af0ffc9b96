# expect: 6:17: error: the exponent of '**' must be a constant number, not a tensor f32[M, N]
import numpy as np


def k(x: "f32[M, N]", y: "f32[M, N]"):
    return x ** y
