# expect: <command line>:1:40: error: bad --dims entry '=4': expected NAME=INTEGER, e.g. M=64
# args: run --dims =4
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
