"""Matrix multiplication a @ b."""
import numpy as np

SIZES = {
    "test": {"M": 33, "K": 48, "N": 65},
    "bench": {"M": 2048, "K": 2048, "N": 2048},
}


def matmul(a: "f32[M, K]", b: "f32[K, N]") -> "f32[M, N]":
    return a @ b
