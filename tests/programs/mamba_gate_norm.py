"""A Mamba-style gated output with a standardizing norm, written the way
reference code writes it: import math, math.sqrt and math.pi on constants,
np.var and np.std, np.clip, np.power with a constant exponent, and
np.float32 on a number (rounded to float32, as NumPy rounds it)."""
import math

import numpy as np

SIZES = {
    "test": {"L": 7, "D": 10},
    "bench": {"L": 2048, "D": 1536},
}


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * np.power(x, 3))))


def mamba_gate_norm(x: "f32[L, D]", z: "f32[L, D]", w: "f32[D]", eps: float = 1e-5,
                    clip_value: float = 6.0) -> ("f32[L, D]", "f32[L, 1]"):
    xf = x
    var = np.var(xf, axis=-1, keepdims=True)
    y = (xf - xf.mean(axis=-1, keepdims=True)) / np.sqrt(var + np.float32(eps))
    gate = np.clip(z, -clip_value, clip_value)
    y = y * gelu_tanh(gate) * w
    spread = np.std(y, axis=1, keepdims=True) / math.e
    return np.clip(y, None, clip_value), spread
