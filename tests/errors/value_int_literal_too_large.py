# expect: 6:16: error: integer literal 99999999999999999999 is too large
import numpy as np


def k(x: "f32[M, N]"):
    return x * 99999999999999999999
