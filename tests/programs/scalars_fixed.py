"""Rank-0 inputs ("f32[]") and fixed integer dims in annotations ("f32[M, 4]")."""
import numpy as np

SIZES = {
    "test": {"M": 7},
    "bench": {"M": 4096},
}


def scalars_fixed(x: "f32[M, 4]", s: "f32[]", t: "f32[]", w: "f32[4, 3]") -> "f32[M, 3]":
    y = (x * s + t) @ w
    return y / (s * s + 1.0) + np.maximum(s, t) - np.exp(t) * w[0]
