# expect: <command line>:1:39: error: bad --dims entry 'M': expected NAME=INTEGER (the file has no SIZES presets)
# args: run --dims M
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
