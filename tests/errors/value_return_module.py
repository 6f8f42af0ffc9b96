# expect: 6:12: error: the returned value must be a tensor or a number, not the module numpy
import numpy as np


def k(x: "f32[M, N]"):
    return np
