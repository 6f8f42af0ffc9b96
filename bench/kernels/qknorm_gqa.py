"""Grouped-query attention with RMSNorm on queries and keys (QK-norm).

q is [B, H, S, D] (B key/value heads, H query heads per group); k and v are
[B, T, D]; gq and gk are the RMSNorm gains over the head dimension.
"""
import numpy as np


def rmsnorm(x, g, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


SIZES = {
    "test": {"B": 2, "H": 3, "S": 5, "T": 65, "D": 17},
    "bench": {"B": 2, "H": 4, "S": 256, "T": 4096, "D": 64},
}


def qknorm_gqa(
    q: "f32[B, H, S, D]",
    k: "f32[B, T, D]",
    v: "f32[B, T, D]",
    gq: "f32[D]",
    gk: "f32[D]",
) -> "f32[B, H, S, D]":
    qn = rmsnorm(q, gq)
    kn = rmsnorm(k, gk)
    scores = np.einsum("bhsd,btd->bhst", qn, kn) / np.sqrt(q.shape[-1])
    return np.einsum("bhst,btd->bhsd", softmax(scores), v)
