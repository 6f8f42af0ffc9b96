# expect: 7:22: error: math.sqrt() takes a number, not a tensor f32[M, N]; use np.sqrt on tensors
import math
import numpy as np


def k(x: "f32[M, N]"):
    return math.sqrt(x)
