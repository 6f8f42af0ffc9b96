# expect: 6:10: error: size 'N' is not given; pass --dims N=...
# args: run --dims M=4
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
