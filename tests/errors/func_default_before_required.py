# expect: 5:21: error: parameter 'u' without a default follows one with a default
import numpy as np


def scale(t, s=2.0, u):
    return t * s + u


def k(x: "f32[M, N]"):
    return scale(x, 1.0, x)
