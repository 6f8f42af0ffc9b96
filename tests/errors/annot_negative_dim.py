# expect: 5:18: error: dimension '-3' must be a positive integer, a size name, or a product or sum of them
import numpy as np


def k(x: "f32[M, -3]"):
    return x
