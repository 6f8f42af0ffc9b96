# expect: <command line>:1:35: error: bad --in 'x.npy': expected NAME=FILE.npy
# args: run --in x.npy
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
