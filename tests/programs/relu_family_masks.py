"""Activations written with boolean masks used as numbers, as in NumPy model
code: ReLU as x * (x > 0), its derivative (x > 0) * 1.0, leaky ReLU with
np.where, a hard-tanh band with np.logical_and, and ReLU6 through ~ and |."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 9},
    "bench": {"M": 1024, "N": 1024},
}


def relu_family_masks(x: "f32[M, N]", g: "f32[M, N]", alpha: float = 0.01) -> "f32[M, N]":
    relu = x * (x > 0)
    relu_grad = g * ((x > 0) * 1.0)
    leaky = np.where(x > 0, x, alpha * x)
    inside = np.logical_and(x > -1.0, x < 1.0)
    hardtanh = np.where(inside, x, np.clip(x, -1.0, 1.0))
    saturated = (x <= 0) | (x >= 6.0)
    relu6 = x * ~saturated + 6.0 * (x >= 6.0)
    return relu + relu_grad + leaky + hardtanh + relu6
