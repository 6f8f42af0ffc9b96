"""Rotary position embedding, rotate-half form: x * cos + rotate_half(x) * sin.

x is [heads, sequence, head_dim]; cos and sin are precomputed [sequence, head_dim]
tables, broadcast over the heads. D must be even.
"""
import numpy as np


def rotate_half(x):
    half = x.shape[-1] // 2
    x1 = x[..., :half]
    x2 = x[..., half:]
    return np.concatenate([-x2, x1], axis=-1)


SIZES = {
    "test": {"H": 3, "S": 33, "D": 18},
    "bench": {"H": 8, "S": 2048, "D": 128},
}


def rope(x: "f32[H, S, D]", cos: "f32[S, D]", sin: "f32[S, D]") -> "f32[H, S, D]":
    return x * cos + rotate_half(x) * sin
