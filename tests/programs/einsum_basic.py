"""einsum on one or two operands: transpose, diagonal, full sum, outer
product, row-wise dot, a batched transpose."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 7, "B": 3},
    "bench": {"M": 1024, "N": 1024, "B": 16},
}


def einsum_basic(
    s: "f32[N, N]", a: "f32[N, M]", u: "f32[M]", v: "f32[N]", t: "f32[B, M, N]"
) -> "f32[B, M, N]":
    at = np.einsum("ij->ji", a)                  # [M, N]
    diag = np.einsum("ii->i", s)                 # [N]
    total = np.einsum("ij->", a)                 # rank 0
    outer = np.einsum("i,j->ij", u, v)           # [M, N]
    rowdot = np.einsum("ij,ij->i", at, outer)    # [M]
    tt = np.einsum("bij->bji", np.einsum("bij->bji", t))   # back to [B, M, N]
    return tt * total + at + outer * diag + rowdot[:, None]
