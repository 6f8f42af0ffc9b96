# expect: is not a folder written by axon optimize (no kernel.json with kernel.so or kernel.py)
# args: exec {dir}
# program: none
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
