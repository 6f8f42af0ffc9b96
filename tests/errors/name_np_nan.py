# expect: 6:34: error: np.nan is not supported: NaN has no place in a mask; fill with -np.inf or a large negative number such as -1e9
import numpy as np


def k(x: "f32[M, N]"):
    return np.where(x > 0, x, np.nan)
