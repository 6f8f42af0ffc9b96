# expect: 6:15: error: np.linalg is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.linalg.norm(x)
