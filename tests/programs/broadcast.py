"""NumPy broadcasting: rank-extending operands, size-1 dims on either side,
and a rank-0 tensor input ("f32[]")."""
import numpy as np

SIZES = {
    "test": {"B": 3, "M": 5, "N": 7},
    "bench": {"B": 16, "M": 512, "N": 512},
}


def broadcast(
    a: "f32[B, M, N]",
    row: "f32[N]",
    col: "f32[M, 1]",
    b1: "f32[B, 1, N]",
    s: "f32[]",
) -> "f32[B, M, N]":
    x = a + row              # [N] extends to [B, M, N]
    y = x * col              # [M, 1] stretches along N, then extends over B
    outer = col * row        # [M, 1] * [N] -> [M, N]
    both = b1 + col          # [B, 1, N] + [M, 1] -> [B, M, N]
    w = np.maximum(y - b1, outer) / (np.abs(b1) + 1.0)
    return np.minimum(w, row * s) + both * s - s
