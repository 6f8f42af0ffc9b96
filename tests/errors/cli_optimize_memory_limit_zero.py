# expect: error: --memory-limit must be between 1 and 2^40 MiB
# args: optimize --dims M=2,N=2 -o {dir}/out --memory-limit 0
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
