# expect: error: --budget must be at least 1 second
# args: optimize --dims M=2,N=2 -o {dir}/out --budget 0.5s
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
