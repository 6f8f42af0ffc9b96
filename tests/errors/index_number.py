# expect: 6:19: error: the number 
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0[0]
