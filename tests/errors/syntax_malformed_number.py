# expect: 6:17: error: malformed number
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2abc
