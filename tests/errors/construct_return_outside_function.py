# expect: 5:1: error: 'return' outside a function
import numpy as np


return 1.0


def k(x: "f32[M, N]"):
    return x
