# expect: <command line>:1:54: error: option --seed given twice
# args: run --dims M=2,N=2 --seed 1 --seed 2
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
