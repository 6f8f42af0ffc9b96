# expect: 6:21: error: x.reshape() needs a shape
import numpy as np


def k(x: "f32[M, N]"):
    return x.reshape()
