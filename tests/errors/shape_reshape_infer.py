# expect: 6:21: error: cannot reshape f32[4, 6] to [-1, 5]: the -1 dimension is not a whole number of elements
import numpy as np


def k(x: "f32[4, 6]"):
    return x.reshape(-1, 5)
