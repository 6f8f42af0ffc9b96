"""Grouped-query attention: H query heads share each key/value head.

q is [B, H, S, D] (B key/value heads, H query heads per group); k and v are
[B, T, D]. Scores and the weighted sum are written with einsum.
"""
import numpy as np


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


SIZES = {
    "test": {"B": 2, "H": 3, "S": 5, "T": 65, "D": 17},
    "bench": {"B": 2, "H": 4, "S": 256, "T": 4096, "D": 64},
}


def gqa(q: "f32[B, H, S, D]", k: "f32[B, T, D]", v: "f32[B, T, D]") -> "f32[B, H, S, D]":
    scores = np.einsum("bhsd,btd->bhst", q, k) / np.sqrt(q.shape[-1])
    p = softmax(scores)
    return np.einsum("bhst,btd->bhsd", p, v)
