# expect: 7:13: error: slice reads outside axis 1 of size 4 (from 1 to 4); Axon does not clip slices of symbolic sizes
# args: run --dims M=2,N=4
import numpy as np


def k(x: "f32[M, N]"):
    return x[:, 1 : x.shape[1] + 1]
