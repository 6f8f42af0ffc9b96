# expect: 5:10: error: SIZES keys must be strings such as "test" and "bench"
import numpy as np


SIZES = {test: {"M": 4}}


def k(x: "f32[M, N]"):
    return x
