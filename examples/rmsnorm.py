"""RMSNorm with a helper function.

Any `def` before the last one is a helper: Axon inlines it where it is called.
Helpers take tensors without annotations, and may have keyword arguments with
float defaults (here `eps`).
"""
import numpy as np


def mean_square(v):
    # Mean over the last axis. keepdims=True keeps that axis as size 1, so the
    # result broadcasts back against v: [M, N] -> [M, 1].
    return np.mean(v * v, axis=-1, keepdims=True)


def normalize(v, eps=1e-6):
    return v / np.sqrt(mean_square(v) + eps)


SIZES = {
    "test": {"M": 7, "N": 33},
    "bench": {"M": 4096, "N": 4096},
}


def rmsnorm(x: "f32[M, N]", g: "f32[N]") -> "f32[M, N]":
    # g has shape [N]; NumPy broadcasting applies it to every row.
    return normalize(x, eps=1e-6) * g
