# expect: error: kernel 'k' returns 2 tensor(s) but --check names 1 file(s)
# args: run --dims M=4 --check {dir}/y.npy
# setup: np.save("{dir}/y.npy", np.zeros(4, np.float32))
import numpy as np


def k(a: "f32[M]"):
    return a * 2.0, a + 1.0
