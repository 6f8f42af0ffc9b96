"""Normalized-transformer (nGPT-style) residual update, as specified for the benchmark:

    rms(x + alpha * (rms(h) + x)),   rms(v) = v / sqrt(mean(v^2, -1) + 1e-6)

with a per-element step size alpha.
"""
import numpy as np


def rms(v):
    return v / np.sqrt(np.mean(v**2, axis=-1, keepdims=True) + 1e-6)


SIZES = {
    "test": {"M": 33, "N": 65},
    "bench": {"M": 1024, "N": 4096},
}


def ntrans(h: "f32[M, N]", x: "f32[M, N]", alpha: "f32[M, N]") -> "f32[M, N]":
    return rms(x + alpha * (rms(h) + x))
