"""einsum contractions: batched, three operands, ellipsis batch dims, and a
contraction over two labels at once."""
import numpy as np

SIZES = {
    "test": {"B": 3, "I": 5, "J": 7, "K": 6, "L": 5},
    "bench": {"B": 16, "I": 256, "J": 256, "K": 256, "L": 256},
}


def einsum_contract(
    x: "f32[B, I, J]", y: "f32[B, J, K]", p: "f32[I, J]", q: "f32[J, K]", r: "f32[K, L]"
):
    batched = np.einsum("bij,bjk->bik", x, y)              # [B, I, K]
    ellipsis = np.einsum("...ij,...jk->...ik", x, y)       # same, batch by ellipsis
    chain = np.einsum("ij,jk,kl->il", p, q, r)             # [I, L]
    two = np.einsum("bij,bij->b", x, x)                    # [B]
    return batched - 0.5 * ellipsis + two[:, None, None], chain
