# expect: 6:22: error: NumPy does not subtract booleans; write (a ^ b) for the difference of masks, or convert one with .astype(np.float32)
import numpy as np


def k(x: "f32[M, N]", y: "f32[M, N]"):
    return (x > 0.0) - (y > 0.0)
