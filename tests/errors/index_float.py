# expect: 6:14: error: invalid index: the number 
import numpy as np


def k(x: "f32[M, N]"):
    return x[1.5]
