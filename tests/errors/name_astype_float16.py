# expect: error: .astype: only np.float32 and bool are supported as dtypes, not the function np.sum
import numpy as np


def k(x: "f32[M, N]"):
    return x.astype(np.sum)
