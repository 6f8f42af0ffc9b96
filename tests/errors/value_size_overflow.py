# expect: 6:37: error: integer overflow in '*'
import numpy as np


def k(x: "f32[M, N]"):
    return x * (4611686018427387904 * 4)
