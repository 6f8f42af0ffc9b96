# expect: 6:5: error: 'yield' statements are not supported
import numpy as np


def k(x: "f32[M, N]"):
    yield x
