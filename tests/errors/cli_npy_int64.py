# expect: <command line>:1:34: error: x.npy: unsupported dtype '<i8'
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.int64))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
