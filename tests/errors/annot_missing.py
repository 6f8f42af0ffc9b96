# expect: 5:23: error: kernel parameter 'y' needs a type annotation string such as "f32[M, N]"
import numpy as np


def k(x: "f32[M, N]", y):
    return x + y
