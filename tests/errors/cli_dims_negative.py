# expect: <command line>:1:40: error: size M must be at least 1
# args: run --dims M=-2,N=3
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
