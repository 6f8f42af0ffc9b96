"""Sizes used as numbers (x.shape[i], negative i, arithmetic and // on them) and
scalar-only arithmetic that is folded to a constant (np.sqrt(2.0 / np.pi))."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 13},
    "bench": {"M": 1024, "N": 1024},
}


def shape_arith(x: "f32[M, N]") -> "f32[M, N]":
    n = x.shape[-1]
    m = x.shape[0]
    c = np.sqrt(2.0 / np.pi)
    scale = 1.0 / np.sqrt(n)
    k = (n + m) * 0.5 - 1
    half = n // 2
    e_ish = np.exp(1.0) - np.e + np.log(np.e ** 2) + np.tanh(0.5) ** 2
    head = x[:, :half].sum(axis=-1, keepdims=True) / half
    tail = x[:, n - half:].mean(axis=-1, keepdims=True) * (n - half)
    return x * scale + c * k + head - tail + e_ish / m + m * n
