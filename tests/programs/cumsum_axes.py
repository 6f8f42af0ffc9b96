"""np.cumsum along the first, a middle and the last axis (negative and
positive), and of an expression."""
import numpy as np

SIZES = {
    "test": {"A": 3, "B": 5, "C": 7},
    "bench": {"A": 64, "B": 128, "C": 256},
}


def cumsum_axes(x: "f32[A, B, C]") -> "f32[A, B, C]":
    c0 = np.cumsum(x, axis=0)
    c1 = np.cumsum(x, axis=1)
    c2 = np.cumsum(x * x, axis=-1)
    c3 = np.cumsum(np.cumsum(x, axis=-2), axis=2)
    return c0 - c1 + c2 / x.shape[-1] + 0.1 * c3
