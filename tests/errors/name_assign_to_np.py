# expect: 6:5: error: assigning to 'np' hides numpy
import numpy as np


def k(x: "f32[M, N]"):
    np = x
    return np
