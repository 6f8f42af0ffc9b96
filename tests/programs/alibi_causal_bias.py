"""BLOOM/MPT-style ALiBi: each head adds slope * (j - i) to its attention
scores, the relative distances made from np.arange, and the future is cut
off with np.triu(..., k=1) of a -inf filled matrix."""
import numpy as np

SIZES = {
    "test": {"H": 3, "S": 6, "D": 4},
    "bench": {"H": 16, "S": 512, "D": 64},
}


def alibi_causal_bias(q: "f32[H, S, D]", k: "f32[H, S, D]", slopes: "f32[H]") -> "f32[H, S, S]":
    s = q.shape[1]
    pos = np.arange(s)
    relative = pos[None, :] - pos[:, None]
    alibi = slopes[:, None, None] * relative[None, :, :]
    future = np.triu(np.full((s, s), -np.inf), k=1)
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) + alibi + future
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    return w / w.sum(axis=-1, keepdims=True)
