"""Inclusive prefix sum along the last axis."""
import numpy as np

SIZES = {
    "test": {"M": 33, "N": 65},
    "bench": {"M": 4096, "N": 4096},
}


def cumsum(x: "f32[M, N]") -> "f32[M, N]":
    return np.cumsum(x, axis=-1)
