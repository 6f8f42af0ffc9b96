# expect: <command line>:1:48: error: bad --seed '-1': expected a non-negative integer
# args: run --dims M=2,N=2 --seed -1
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
