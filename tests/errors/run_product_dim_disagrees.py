# expect: x.npy has shape (4, 7) but parameter 'x' is f32[M, 2*N]: dimension 1 is 2*N = 6
# args: run {prog} --dims N=3 --in x={dir}/x.npy
# setup: np.save("{dir}/x.npy", np.zeros((4, 7)))
import numpy as np


def k(x: "f32[M, 2*N]"):
    return x
