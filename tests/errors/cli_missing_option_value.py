# expect: <command line>:1:38: error: option --dims needs a value (SPEC)
# args: run --dims
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
