# expect: error: x.npy: truncated: header says 1000000 elements (4000000 bytes) but only 0 bytes follow
# args: run --in x=x.npy
# setup: open("{dir}/x.npy", "wb").write(b"\x93NUMPY\x01\x00\x46\x00" + b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }".ljust(69) + b"\n")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
