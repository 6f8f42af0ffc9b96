# expect: <command line>:1:39: error: unknown option '--dims'
# args: check --dims M=4
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
