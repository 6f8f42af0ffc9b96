# expect: 6:14: error: index -5 is out of bounds for axis 0 with size 4
import numpy as np


def k(x: "f32[4, N]"):
    return x[-5, :]
