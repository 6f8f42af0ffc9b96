# expect: 5:15: error: dimension '0' must be a positive integer or a size name
import numpy as np


def k(x: "f32[0, N]"):
    return x
