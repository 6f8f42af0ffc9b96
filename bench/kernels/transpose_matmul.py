"""Matrix multiplication with a transposed left operand: a.T @ b."""
import numpy as np

SIZES = {
    "test": {"K": 48, "M": 33, "N": 65},
    "bench": {"K": 2048, "M": 2048, "N": 2048},
}


def transpose_matmul(a: "f32[K, M]", b: "f32[K, N]") -> "f32[M, N]":
    return a.T @ b
