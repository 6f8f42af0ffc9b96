"""RetNet/RWKV-style decayed causal mixing: D[i, j] = gamma ** (i - j) for
j <= i and 0 above the diagonal, written with index grids from np.arange, a
per-head decay gamma = sigmoid(w) in (0, 1), and the exponent taken through
exp and log; retention = (q k^T * D) v."""
import numpy as np

SIZES = {
    "test": {"H": 2, "T": 5, "D": 3},
    "bench": {"H": 8, "T": 512, "D": 64},
}


def retnet_decay_mask(q: "f32[H, T, D]", k: "f32[H, T, D]", v: "f32[H, T, D]", w: "f32[H]") -> "f32[H, T, D]":
    t = q.shape[1]
    gamma = 1.0 / (1.0 + np.exp(-w))
    n = np.arange(t)[:, None]
    m = np.arange(t)[None, :]
    distance = (n - m) * 1.0
    decay = np.exp(distance[None, :, :] * np.log(gamma)[:, None, None])
    decay = np.where((n >= m)[None, :, :], decay, 0.0)
    retention = (q @ k.transpose(0, 2, 1)) * decay
    return retention @ v
