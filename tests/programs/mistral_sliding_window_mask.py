"""Mistral-style sliding-window causal attention scores: a query at position i
sees keys j with i - window < j <= i. The mask is the & of two index
comparisons, and masked scores are -np.inf before the softmax."""
import numpy as np

SIZES = {
    "test": {"S": 8, "D": 4},
    "bench": {"S": 1024, "D": 128},
}


def mistral_sliding_window_mask(q: "f32[S, D]", k: "f32[S, D]", window: int = 3) -> "f32[S, S]":
    seq_len = q.shape[0]
    i = np.arange(seq_len)[:, None]
    j = np.arange(seq_len)[None, :]
    mask = (j <= i) & (j > i - window)
    scores = (q @ k.T) / np.sqrt(q.shape[1])
    scores = np.where(mask, scores, -np.inf)
    m = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - m)
    return e / e.sum(axis=-1, keepdims=True)
