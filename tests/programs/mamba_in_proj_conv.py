"""Mamba's input side: the in-projection gives x and the gate z together
(np.split), x goes through a causal depthwise convolution of width 3 (two
steps of zero history from np.pad, then shifted slices), and both through
SiLU."""
import numpy as np

SIZES = {
    "test": {"L": 6, "D": 4, "E": 8},
    "bench": {"L": 1024, "D": 768, "E": 1536},
}


def silu(x):
    return x / (1.0 + np.exp(-x))


def mamba_in_proj_conv(x: "f32[L, D]", w_in: "f32[D, 2*E]", conv_w: "f32[3, E]",
                       conv_b: "f32[E]") -> "f32[L, E]":
    n = x.shape[0]
    xs, z = np.split(x @ w_in, 2, axis=-1)
    xp = np.pad(xs, ((2, 0), (0, 0)))
    conv = xp[0:n] * conv_w[0] + xp[1:n + 1] * conv_w[1] + xp[2:n + 2] * conv_w[2] + conv_b
    return silu(conv) * silu(z)
