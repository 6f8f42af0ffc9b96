# expect: 7:16: error: a comparison can only be the condition of np.where, not the right operand of '*'
import numpy as np


def k(x: "f32[M, N]"):
    mask = x > 0.0
    return x * mask
