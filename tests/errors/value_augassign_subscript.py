# expect: 6:6: error: augmented assignment needs a plain name
import numpy as np


def k(x: "f32[M, N]"):
    x[0] += 1.0
    return x
