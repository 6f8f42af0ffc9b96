# expect: 6:21: error: cannot reshape f32[4, 6] (24 elements) to [5, 5] (25 elements)
import numpy as np


def k(x: "f32[4, 6]"):
    return x.reshape(5, 5)
