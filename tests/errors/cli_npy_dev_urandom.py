# expect: error: /dev/urandom: not an .npy file (bad magic)
# args: run --in x=/dev/urandom
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
