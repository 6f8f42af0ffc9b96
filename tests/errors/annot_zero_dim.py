# expect: 5:15: error: dimension '0' must be a positive integer, a size name, or a product or sum of them
import numpy as np


def k(x: "f32[0, N]"):
    return x
