"""Prefix-LM attention (T5/GLM/UniLM style): the first `prefix` positions see
each other bidirectionally and the rest is causal, so the mask is
(j <= i) | (j < prefix); masked scores are filled with -np.inf via np.where on
the negated mask."""
import numpy as np

SIZES = {
    "test": {"S": 7, "D": 4},
    "bench": {"S": 512, "D": 64},
}


def prefix_lm_mask(q: "f32[S, D]", k: "f32[S, D]", v: "f32[S, D]", prefix: int = 3) -> "f32[S, D]":
    s = q.shape[0]
    rows = np.arange(s).reshape(s, 1)
    cols = np.arange(s).reshape(1, s)
    visible = (cols <= rows) | (cols < prefix)
    scores = q @ k.T * (1.0 / np.sqrt(q.shape[-1]))
    scores = np.where(~visible, -np.inf, scores)
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v
