# expect: 7:10: error: x.npy has shape (4, 4) but parameter 'x' is f32[M, N]: x.npy gives M=4 but --dims gives M=3
# args: run --dims M=3 --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((4, 4), np.float32))
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
