# expect: 6:18: error: integer overflow
import numpy as np


def k(x: "f32[4611686018427387904, 4]"):
    return x * x.size
