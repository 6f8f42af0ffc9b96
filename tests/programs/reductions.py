"""sum / mean / max / min as np functions and as methods: negative axes, axis
tuples (also unsorted and negative), keepdims True and False."""
import numpy as np

SIZES = {
    "test": {"B": 3, "M": 5, "N": 7},
    "bench": {"B": 16, "M": 512, "N": 512},
}


def reductions(x: "f32[B, M, N]"):
    s1 = np.sum(x, axis=-1)                          # [B, M]
    s2 = x.sum(axis=(0, 2))                          # [M]
    m1 = np.mean(x, axis=1, keepdims=True)           # [B, 1, N]
    m2 = x.mean(axis=(-1, -3), keepdims=False)       # [M]
    mx = np.max(x, axis=0)                           # [M, N]
    mn = x.min(axis=-2, keepdims=True)               # [B, 1, N]
    mx2 = x.max(axis=(2, 0))                         # [M]
    mn2 = np.min(x, axis=(0, -1), keepdims=True)     # [1, M, 1]
    sk = np.sum(x, axis=(1, 2), keepdims=True)       # [B, 1, 1]
    per_elem = s1[:, :, None] + m1 * mn - mx + mn2 + sk   # [B, M, N]
    per_row = s2 + m2 + mx2 - mn2[0, :, 0]           # [M]
    return per_elem, per_row
