# expect: error: optimize cannot search for trn1 yet: Trainium kernels are printed as instruction listings
# args: optimize --dims M=2,N=2 -o {dir}/out --target trn1
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
