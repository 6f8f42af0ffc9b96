# expect: <command line>:1:42: error: x.npy: Fortran-order arrays are not supported; save with np.ascontiguousarray
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
