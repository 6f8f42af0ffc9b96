# expect: 6:21: error: matmul: batch dims of f32[2, M, K] and f32[3, K, N] cannot be broadcast
import numpy as np


def k(a: "f32[2, M, K]", b: "f32[3, K, N]"):
    return np.matmul(a, b)
