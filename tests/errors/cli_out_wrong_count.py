# expect: <command line>:1:51: error: kernel 'k' returns 2 tensor(s) but --out names 1 file(s)
# args: run --dims test --out a.npy
import numpy as np


SIZES = {"test": {"M": 3, "N": 4}, "bench": {"M": 1024, "N": 512}}


def k(x: "f32[M, N]", y: "f32[M]"):
    return x * y[:, None], x.sum(axis=1)
