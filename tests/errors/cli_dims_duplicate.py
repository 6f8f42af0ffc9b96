# expect: <command line>:1:47: error: size M is given twice
# args: run --dims M=4,N=3,M=5
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
