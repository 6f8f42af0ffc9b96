# expect: <command line>:1:37: error: .: cannot read: Is a directory
# args: run --in x=.
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
