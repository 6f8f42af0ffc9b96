# expect: <command line>:1:35: error: x.npy: unsupported dtype '|O'
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.array([[1, "a"], [None, 2.0]], dtype=object), allow_pickle=True)
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
