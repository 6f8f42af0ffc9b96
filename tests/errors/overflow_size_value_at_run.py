# expect: 7:37: error: size arithmetic overflows 64-bit integers
# args: run --dims M=3,N=2
import numpy as np


def k(x: "f32[M, N]"):
    return x * (4611686018427387904 * x.shape[0])
