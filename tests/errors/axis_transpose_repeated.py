# expect: 6:30: error: transpose: axis 1 repeated
import numpy as np


def k(x: "f32[M, N, P]"):
    return x.transpose(0, 1, 1)
