# expect: <command line>:1:44: error: parameter 'x' is given twice
# args: run --in x=x.npy --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.float32))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
