# expect: <command line>:1:50: error: kernel 'k' has no size 'K' (its sizes: M, N)
# args: run --dims M=4,N=3,K=2
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
