# expect: <command line>:1:40: error: size M is too large
# args: run --dims M=1234567890123456789012,N=1
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
