# expect: error: expected a duration such as 90, 90s or 2m, got 'soon'
# args: optimize --dims M=2,N=2 -o {dir}/out --budget soon
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
