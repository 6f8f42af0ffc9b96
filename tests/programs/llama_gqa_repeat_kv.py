"""Grouped-query attention as LLaMA's reference code writes it: repeat_kv
gives each query head its key/value head by stacking each kv head twice
(np.stack on a new axis, then a reshape that merges it), then softmax
attention."""
import numpy as np

SIZES = {
    "test": {"G": 2, "T": 5, "D": 4},
    "bench": {"G": 8, "T": 512, "D": 128},
}


def repeat_kv(x):
    n_kv, t, d = x.shape
    return np.stack([x, x], axis=1).reshape(n_kv * 2, t, d)


def llama_gqa_repeat_kv(q: "f32[2*G, T, D]", k: "f32[G, T, D]", v: "f32[G, T, D]") -> "f32[2*G, T, D]":
    k = repeat_kv(k)
    v = repeat_kv(v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    p = np.exp(scores - scores.max(axis=-1, keepdims=True))
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ v
