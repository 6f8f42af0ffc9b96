"""RWKV channel mixing with the token shift written as reference code writes
it: the previous token's features come from padding one zero row in front
(np.pad) and dropping the last row."""
import numpy as np

SIZES = {
    "test": {"T": 5, "C": 6, "F": 10},
    "bench": {"T": 1024, "C": 768, "F": 3072},
}


def rwkv_token_shift_pad(x: "f32[T, C]", mix_k: "f32[C]", mix_r: "f32[C]", w_k: "f32[C, F]",
                         w_v: "f32[F, C]", w_r: "f32[C, C]") -> "f32[T, C]":
    shifted = np.pad(x, ((1, 0), (0, 0)))[:-1]
    xk = x * mix_k + shifted * (1 - mix_k)
    xr = x * mix_r + shifted * (1 - mix_r)
    k = np.square(np.maximum(xk @ w_k, 0))
    r = 1 / (1 + np.exp(-(xr @ w_r)))
    return r * (k @ w_v)
