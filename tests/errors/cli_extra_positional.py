# expect: <command line>:1:36: error: unexpected argument 'extra.py'
# args: check {prog} extra.py
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
