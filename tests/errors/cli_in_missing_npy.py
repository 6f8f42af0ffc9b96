# expect: <command line>:1:39: error: missing.npy: cannot open: No such file or directory
# args: run --in x=missing.npy
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
