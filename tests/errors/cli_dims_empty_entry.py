# expect: <command line>:1:45: error: bad --dims entry '': expected NAME=INTEGER (the file has no SIZES presets)
# args: run --dims M=4,,N=3
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
