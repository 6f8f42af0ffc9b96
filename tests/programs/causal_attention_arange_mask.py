"""Single-head causal attention with the mask built from index grids, the
way JAX/NumPy references write it: np.arange(S)[:, None] >= np.arange(S)[None, :],
turned into an additive bias (HuggingFace's (1 - mask) * large-negative style)
before the softmax. The fill is -100 rather than -1e9 so that NumPy's float64
exp does not warn of underflow; exp(-100) is far below float32 resolution."""
import numpy as np

SIZES = {
    "test": {"S": 7, "D": 5},
    "bench": {"S": 512, "D": 64},
}


def causal_attention_arange_mask(q: "f32[S, D]", k: "f32[S, D]", v: "f32[S, D]",
                                 mask_value: float = -100.0) -> "f32[S, D]":
    s = q.shape[0]
    causal = np.arange(s)[:, None] >= np.arange(s)[None, :]
    bias = (1.0 - causal) * mask_value
    scores = q @ k.T / np.sqrt(q.shape[-1]) + bias
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / np.sum(p, axis=-1, keepdims=True)
    return p @ v
