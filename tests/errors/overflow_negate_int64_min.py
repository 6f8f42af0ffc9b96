# expect: 6:16: error: integer overflow
import numpy as np


def k(x: "f32[M, N]"):
    return x * -(-9223372036854775807 - 1)
