# expect: <command line>:1:42: error: size M=1234567890123456789012 is too large
# args: run --dims M=1234567890123456789012,N=1
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
