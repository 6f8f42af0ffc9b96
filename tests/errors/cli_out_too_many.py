# expect: <command line>:1:51: error: kernel 'k' returns 1 tensor(s) but --out names 2 file(s)
# args: run --dims M=2,N=2 --out a.npy,b.npy
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
