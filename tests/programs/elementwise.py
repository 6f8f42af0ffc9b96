"""Every element-wise function, unary minus, scalar operands on either side and
`**` with constant exponents (2, 0.5, -1, 3, and non-integer negatives)."""
import numpy as np

SIZES = {
    "test": {"M": 7, "N": 13},
    "bench": {"M": 1024, "N": 1024},
}


def elementwise(x: "f32[M, N]", y: "f32[M, N]") -> "f32[M, N]":
    ax = np.abs(x)
    a = np.exp(-x) + np.log(ax + 1.0) - np.sqrt(ax) + np.tanh(y)
    b = np.square(x) * np.reciprocal(y * y + 1.0)
    c = x**2 + ax**0.5 - (x * x + 2.0) ** -1 + 0.1 * y**3
    d = (ax + 1.0) ** -0.5 + (ax + 0.5) ** 1.5
    e = -np.abs(-y) + np.maximum(x, 0.0) - np.minimum(x, y) + np.maximum(-0.5, y)
    f = 2 * x - y / 4 + (1 - x) * 0.5 - 3.0 / (ax + 1)
    return a + b + c + d + e + f
