"""A tiny attention head that returns two tensors.

`return a, b` makes a kernel with two outputs; `axon run` writes one .npy per
output (--out out0.npy,out1.npy). x.shape[-1] is a size used as a number.
"""
import numpy as np

SIZES = {
    "test": {"S": 5, "T": 7, "D": 6},
    "bench": {"S": 1024, "T": 1024, "D": 64},
}


def attention(q: "f32[S, D]", k: "f32[T, D]", v: "f32[T, D]"):
    scores = q @ k.T / np.sqrt(q.shape[-1])            # [S, T]
    scores = scores - scores.max(axis=-1, keepdims=True)  # subtract the row max
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)              # softmax over keys
    out = p @ v                                        # [S, D]
    return out, p                                      # two outputs
