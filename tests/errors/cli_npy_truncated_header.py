# expect: <command line>:1:45: error: x.npy: truncated: the header length is
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.float32)); d = open("{dir}/x.npy", "rb").read(); open("{dir}/x.npy", "wb").write(d[:40])
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
