# expect: 6:14: error: slice bounds must be integers or sizes, not the number 
import numpy as np


def k(x: "f32[M, N]"):
    return x[0.5:]
