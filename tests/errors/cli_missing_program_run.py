# expect: <command line>:1:6: error: axon run needs a program file
# args: run --dims M=4
# program: none
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
