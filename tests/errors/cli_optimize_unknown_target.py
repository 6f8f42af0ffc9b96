# expect: error: unknown target 'nosuch': expected cpu, trn1 or a description file (.json)
# args: optimize --dims M=2,N=2 -o {dir}/out --target nosuch
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
