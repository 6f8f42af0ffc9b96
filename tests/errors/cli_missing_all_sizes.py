# expect: 6:10: error: size 'M' is not given; pass --dims M=...
# args: run
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
