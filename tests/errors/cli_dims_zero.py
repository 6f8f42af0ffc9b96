# expect: <command line>:1:36: error: size M must be at least 1
# args: run --dims M=0,N=3
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
