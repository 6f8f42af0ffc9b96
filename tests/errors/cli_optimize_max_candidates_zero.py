# expect: error: --max-candidates must be at least 1
# args: optimize --dims M=2,N=2 -o {dir}/out --max-candidates 0
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
