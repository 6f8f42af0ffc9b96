# expect: 6:21: error: the condition of np.where must be a comparison such as 'x > 0', not a tensor f32[M, N]
import numpy as np


def k(x: "f32[M, N]"):
    return np.where(x, x, 0.0)
