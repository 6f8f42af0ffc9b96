# expect: 6:20: error: np.split: axis 1 of size 7 does not divide into 2 equal parts; np.array_split allows unequal parts
import numpy as np


def k(x: "f32[M, 7]"):
    return np.split(x, 2, axis=1)
