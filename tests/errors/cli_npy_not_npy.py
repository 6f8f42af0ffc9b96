# expect: <command line>:1:36: error: x.npy: not an .npy file (bad magic)
# args: run --in x=x.npy
# setup: open("{dir}/x.npy", "w").write("x = [[1, 2], [3, 4]]\n")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
