# expect: 6:20: error: comprehensions are not supported
import numpy as np


def k(x: "f32[M, N]"):
    parts = [x * i for i in (1, 2)]
    return np.concatenate(parts)
