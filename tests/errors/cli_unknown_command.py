# expect: <command line>:1:6: error: unknown command 'frobnicate'
# args: frobnicate
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
