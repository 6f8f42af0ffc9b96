# expect: 5:9: error: SIZES must be a dict literal like {"test": {"M": 32}, "bench": {"M": 4096}}
import numpy as np


SIZES = [("test", 4)]


def k(x: "f32[M, N]"):
    return x
