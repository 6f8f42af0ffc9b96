# expect: <command line>:1:38: error: x.npy: truncated: header says 1200 elements (4800 bytes) but only 
# args: run --in x=x.npy
# setup: np.save("{dir}/x.npy", np.zeros((30, 40), np.float32)); d = open("{dir}/x.npy", "rb").read(); open("{dir}/x.npy", "wb").write(d[:1000])
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
