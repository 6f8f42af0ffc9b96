# expect: 7:10: error: x.npy has shape (3, 5) but parameter 'x' is f32[M, 4]: dimension 1 must be 4
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 5), np.float32))
import numpy as np


def k(x: "f32[M, 4]"):
    return x * 2.0
