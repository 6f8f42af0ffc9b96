import numpy as np


def absolute(x: "f32[N]") -> "f32[N]":
    return np.abs(x)
