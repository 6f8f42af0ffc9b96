# expect: 6:26: error: .reshape() takes no keyword arguments
import numpy as np


def k(x: "f32[M, N]"):
    return x.reshape(-1, order="F")
