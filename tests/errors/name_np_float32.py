# expect: 6:15: error: np.float32 is not supported (dtypes come from the parameter annotations)
import numpy as np


def k(x: "f32[M, N]"):
    return np.float32(x)
