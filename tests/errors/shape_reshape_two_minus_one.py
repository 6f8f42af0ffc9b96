# expect: 6:26: error: reshape: only one dimension can be -1
import numpy as np


def k(x: "f32[4, 6]"):
    return x.reshape(-1, -1)
