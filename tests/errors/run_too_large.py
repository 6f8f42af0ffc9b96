# expect: 6:10: error: a tensor of shape [M, N] is too large for the reference interpreter
# args: run --dims M=100000,N=100000
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
