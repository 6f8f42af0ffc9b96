# expect: 6:20: error: np.tril needs at least two dimensions, not f32[N]
import numpy as np


def k(x: "f32[N]"):
    return np.tril(x)
