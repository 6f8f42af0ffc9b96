"""GPT-2's MLP block as its reference code writes it: the tanh approximation of
GELU with math.sqrt(2 / math.pi) and np.power(x, 3), biases added after each
projection (c_fc, then c_proj)."""
import math

import numpy as np

SIZES = {
    "test": {"T": 5, "C": 12},
    "bench": {"T": 1024, "C": 768},
}


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * np.power(x, 3))))


def gpt2_mlp_gelu_tanh(x: "f32[T, C]", w_fc: "f32[C, 4*C]", b_fc: "f32[4*C]", w_proj: "f32[4*C, C]",
                       b_proj: "f32[C]") -> "f32[T, C]":
    h = gelu(x @ w_fc + b_fc)
    return h @ w_proj + b_proj
