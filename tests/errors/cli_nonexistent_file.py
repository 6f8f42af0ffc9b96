# expect: <command line>:1:12: error: no such file 'no_such_kernel.py'
# args: check no_such_kernel.py
# program: none
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
