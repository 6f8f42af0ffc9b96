# expect: <command line>:1:6: error: axon check needs a program file
# args: check
# program: none
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
