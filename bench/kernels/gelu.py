"""GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
import numpy as np

SIZES = {
    "test": {"M": 33, "N": 65},
    "bench": {"M": 4096, "N": 4096},
}


def gelu(x: "f32[M, N]") -> "f32[M, N]":
    c = np.sqrt(2.0 / np.pi)
    return 0.5 * x * (1.0 + np.tanh(c * (x + 0.044715 * x**3)))
