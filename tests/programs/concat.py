"""np.concatenate along the first, last and a negative axis, with two and three
operands, then split again by slicing with sizes."""
import numpy as np

SIZES = {
    "test": {"M": 5, "K": 7, "N": 6},
    "bench": {"M": 1024, "K": 1024, "N": 1024},
}


def concat(a: "f32[M, N]", b: "f32[K, N]", c: "f32[M, 3]") -> "f32[N, N]":
    rows = np.concatenate([a, b], axis=0)                  # [M + K, N]
    gram = rows.T @ rows                                   # [N, N]
    cols = np.concatenate([a, c, -a], axis=-1)             # [M, 2N + 3]
    n = a.shape[1]
    left = cols[:, :n]                                     # split back by slicing
    right = cols[:, n + 3:]
    mid = cols[:, n:n + 3].sum(axis=-1, keepdims=True)
    top = rows[: a.shape[0]]
    bottom = rows[a.shape[0]:]
    both = np.concatenate((left + right, 0.5 * top + mid), axis=-2)   # [2M, N]
    return gram + both.T @ both + bottom.T @ b
