# expect: 6:21: error: integer overflow
import numpy as np


def k(x: "f32[M, N]"):
    return x.reshape(4611686018427387904, 4, -1)
