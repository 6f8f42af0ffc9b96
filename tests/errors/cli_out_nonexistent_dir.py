# expect: <command line>:1:61: error: no/such/dir/b.npy: cannot write: No such file or directory
# args: run --dims test --out a.npy,no/such/dir/b.npy
import numpy as np


SIZES = {"test": {"M": 3, "N": 4}, "bench": {"M": 1024, "N": 512}}


def k(x: "f32[M, N]", y: "f32[M]"):
    return x * y[:, None], x.sum(axis=1)
