# expect: error: .astype: only np.float32 is supported as a dtype, not the function np.sum
import numpy as np


def k(x: "f32[M, N]"):
    return x.astype(np.sum)
