# expect: 6:5: error: 'global' statements are not supported
import numpy as np


def k(x: "f32[M, N]"):
    global y
    return x
