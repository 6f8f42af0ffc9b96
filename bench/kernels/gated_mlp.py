"""Gated MLP (SwiGLU-style) up-projection: silu(x @ w1) * (x @ w2)."""
import numpy as np


def silu(x):
    return x / (1.0 + np.exp(-x))


SIZES = {
    "test": {"M": 5, "K": 65, "N": 130},
    "bench": {"M": 8, "K": 4096, "N": 4096},
}


def gated_mlp(x: "f32[M, K]", w1: "f32[K, N]", w2: "f32[K, N]") -> "f32[M, N]":
    return silu(x @ w1) * (x @ w2)
