# expect: error: p.npy: not an .npy file (bad magic)
# args: run --in x=p.npy
# setup: __import__("os").mkfifo("{dir}/p.npy")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
