# expect: 5:10: error: unterminated string
import numpy as np


def k(x: "f32[M, N]):
    return x
