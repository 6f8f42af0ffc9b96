# expect: <command line>:1:53: error: bad --seed 'abc': expected a non-negative integer
# args: run --dims M=2,N=2 --seed=abc
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
