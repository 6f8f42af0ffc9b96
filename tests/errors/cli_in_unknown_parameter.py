# expect: <command line>:1:43: error: kernel 'k' has no parameter 'z' (its parameters: x)
# args: run --in z=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.float32))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
