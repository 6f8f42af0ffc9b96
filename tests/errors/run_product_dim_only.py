# expect: error: size N appears only inside the dimension 2*N of 'x'; give it with --dims N=...
# args: run {prog} --in x={dir}/x.npy
# setup: np.save("{dir}/x.npy", np.zeros((4, 6)))
import numpy as np


def k(x: "f32[M, 2*N]"):
    return x
