# expect: is not a folder written by axon optimize (no kernel.json and kernel.so)
# args: exec {dir}
# program: none
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
