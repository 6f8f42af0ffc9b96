"""Mamba/RWKV-style gating with masks: a SiLU gate, a causal cumulative sum
of the gated input formed as np.tri(T) @ x (a lower-triangular matrix of
ones), and positions past a length limit zeroed by a boolean row mask used
as a number."""
import numpy as np

SIZES = {
    "test": {"T": 6, "C": 5},
    "bench": {"T": 1024, "C": 256},
}


def mamba_gated_mask(x: "f32[T, C]", z: "f32[T, C]", length: int = 4) -> "f32[T, C]":
    t = x.shape[0]
    gate = z / (1.0 + np.exp(-z))
    prefix = np.tri(t) @ (x * gate)
    valid = np.arange(t) < length
    return prefix * valid[:, None]
