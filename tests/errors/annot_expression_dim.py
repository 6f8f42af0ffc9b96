# expect: 5:15: error: dimension 'M+1' must be a positive integer or a size name
import numpy as np


def k(x: "f32[M+1, N]"):
    return x
