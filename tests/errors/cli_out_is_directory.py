# expect: <command line>:1:55: error: sub: cannot write: Is a directory
# args: run --dims M=2,N=2 --out sub
# setup: import os; os.mkdir("{dir}/sub")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
