# expect: 11:26: error: y.npy has shape (5,) but parameter 'y' is f32[M]: y.npy gives M=5 but x.npy gives M=3
# args: run --in x=x.npy --in y=y.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.float32))
# setup: np.save("{dir}/y.npy", np.zeros((5,), np.float32))
import numpy as np


SIZES = {"test": {"M": 3, "N": 4}, "bench": {"M": 1024, "N": 512}}


def k(x: "f32[M, N]", y: "f32[M]"):
    return x * y[:, None], x.sum(axis=1)
