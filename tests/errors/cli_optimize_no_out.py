# expect: <command line>:1:6: error: optimize needs an output folder: -o OUT/
# args: optimize --dims M=2,N=2
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
