# expect: error: x.npy: shape (100000, 100000) has 10000000000 elements, above the reference interpreter's limit of 2147483648
# args: run --in x=x.npy
# setup: open("{dir}/x.npy", "wb").write(b"\x93NUMPY\x01\x00\x46\x00" + b"{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000), }".ljust(69) + b"\n")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
