# expect: <command line>:1:45: error: bad --dims entry 'N=four': expected NAME=INTEGER, e.g. M=64
# args: run --dims M=4,N=four
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
