# expect: 6:25: error: np.sum() got multiple values for argument 'axis'
import numpy as np


def k(x: "f32[M, N]"):
    return np.sum(x, 0, axis=1)
