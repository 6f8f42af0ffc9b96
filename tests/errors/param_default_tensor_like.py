# expect: 5:26: error: the default of kernel parameter 'w' must be a number, True, False or None, not a tuple of 2
import numpy as np


def k(x: "f32[M, N]", w=(1, 2)):
    return x
