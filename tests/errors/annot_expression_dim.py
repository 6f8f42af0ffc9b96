# expect: 5:15: error: dimension 'M/2' must be a positive integer, a size name, or a product or sum of them
import numpy as np


def k(x: "f32[M/2, N]"):
    return x
