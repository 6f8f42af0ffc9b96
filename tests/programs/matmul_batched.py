"""Batched matmul: batch dims broadcast (size-1 against H, missing against B),
both the @ operator and np.matmul."""
import numpy as np

SIZES = {
    "test": {"B": 2, "H": 3, "M": 5, "K": 7, "N": 6, "P": 5},
    "bench": {"B": 4, "H": 8, "M": 256, "K": 256, "N": 256, "P": 256},
}


def matmul_batched(
    a: "f32[B, 1, M, K]", b: "f32[H, K, N]", c: "f32[N, P]", d: "f32[B, H, P, M]"
) -> "f32[B, H, M, M]":
    x = a @ b                 # [B, 1, M, K] @ [H, K, N] -> [B, H, M, N]
    y = np.matmul(x, c)       # 2-D right operand broadcast over [B, H]
    return y @ d              # [B, H, M, P] @ [B, H, P, M]
