# expect: is a cpu target (use axon optimize for cpu)
# args: lower --dims M=2,N=2 --target cpu
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
