"""An RWKV-style channel mix written with local helpers, as reference code
often is: a lambda for the activation, a nested def that closes over a
local, and a helper passed as an argument."""
import numpy as np

SIZES = {
    "test": {"T": 6, "C": 8, "F": 12},
    "bench": {"T": 1024, "C": 1024, "F": 4096},
}


def apply(f, x):
    return f(x)


def rwkv_channel_mix_local(x: "f32[T, C]", x_prev: "f32[T, C]", mix_k: "f32[C]", mix_r: "f32[C]",
                           w_k: "f32[C, F]", w_v: "f32[F, C]", w_r: "f32[C, C]") -> "f32[T, C]":
    sigmoid = lambda z: 1.0 / (1.0 + np.exp(-z))
    relu_sq = lambda z, p=2: np.square(np.maximum(z, 0.0)) if p == 2 else np.maximum(z, 0.0) ** p

    def mix(m):
        return x * m + x_prev * (1.0 - m)

    k = relu_sq(mix(mix_k) @ w_k)
    r = apply(sigmoid, mix(mix_r) @ w_r)
    return r * (k @ w_v)
