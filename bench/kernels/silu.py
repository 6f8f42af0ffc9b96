"""SiLU (swish): x * sigmoid(x), element-wise."""
import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


SIZES = {
    "test": {"M": 33, "N": 65},
    "bench": {"M": 4096, "N": 4096},
}


def silu(x: "f32[M, N]") -> "f32[M, N]":
    return x * sigmoid(x)
