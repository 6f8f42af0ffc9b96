# expect: <command line>:1:34: error: unknown option '--frobnicate'
# args: check --frobnicate
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
