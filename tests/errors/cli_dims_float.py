# expect: <command line>:1:35: error: bad --dims entry 'M=4.0': expected NAME=INTEGER, e.g. M=64
# args: run --dims M=4.0,N=3
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
