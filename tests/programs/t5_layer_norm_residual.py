"""T5's layer norm (no mean subtraction, no bias: a scale-only RMS norm whose
variance is np.mean of np.square with keepdims=1), applied to the residual
stream after a dropout-free residual add, with its epsilon a parameter."""
import numpy as np

SIZES = {
    "test": {"S": 6, "D": 10},
    "bench": {"S": 2048, "D": 1024},
}


def t5_layer_norm_residual(hidden: "f32[S, D]", attn_out: "f32[S, D]", weight: "f32[D]",
                           eps: float = 1e-6) -> "f32[S, D]":
    hidden = hidden + attn_out
    variance = np.mean(np.square(hidden), axis=-1, keepdims=1)
    hidden = hidden * (1.0 / np.sqrt(variance + eps))
    return weight * hidden
