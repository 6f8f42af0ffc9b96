# expect: 6:21: error: np.stack: all tensors must have the same shape, not f32[M, 2] and f32[M, 3]
import numpy as np


def k(x: "f32[M, 2]", y: "f32[M, 3]"):
    return np.stack([x, y], axis=1)
