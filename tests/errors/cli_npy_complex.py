# expect: <command line>:1:36: error: x.npy: unsupported dtype '<c8'
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.complex64))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
