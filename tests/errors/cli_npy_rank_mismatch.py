# expect: 7:10: error: x.npy has shape (12,) but parameter 'x' is f32[M, N] (rank 1 vs 2)
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((12,), np.float32))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
