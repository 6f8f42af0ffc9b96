"""matmul with 1-D operands: matrix @ vector, vector @ matrix, vector @ vector
(rank 0), and batched matrix @ vector."""
import numpy as np

SIZES = {
    "test": {"B": 3, "M": 5, "K": 7},
    "bench": {"B": 16, "M": 1024, "K": 1024},
}


def matmul_vector(a: "f32[M, K]", u: "f32[K]", w: "f32[M]", x: "f32[B, M, K]"):
    au = a @ u                  # [M]
    wa = w @ a                  # [K]
    uu = u @ u                  # rank 0
    xu = x @ u                  # [B, M]
    wx = np.matmul(w, x)        # [B, K]
    return au + (xu * uu).sum(axis=0), wa + wx.mean(axis=0)
