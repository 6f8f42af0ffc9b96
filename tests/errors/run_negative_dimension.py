# expect: 7:13: error: dimension N - 8 is negative (-4) at these sizes
# args: run --dims M=2,N=4
import numpy as np


def k(x: "f32[M, N]"):
    return x[:, : x.shape[1] - 8]
