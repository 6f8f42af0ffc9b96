"""Reductions written the other natural ways: no axis (over everything, rank 0)
and the axis given positionally."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 7},
    "bench": {"M": 1024, "N": 1024},
}


def reductions_full(x: "f32[M, N]") -> "f32[M]":
    total = x.sum()                    # rank 0
    big = np.max(x)
    small = x.min()
    avg = np.mean(x)
    rows = x.sum(-1) + np.mean(x, 1)   # positional axis
    return rows * avg + total - big + small + x.max(-1)
