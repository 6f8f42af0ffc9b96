"""RMSNorm (with gain g) followed by a projection: rmsnorm(x) @ w."""
import numpy as np

SIZES = {
    "test": {"M": 5, "K": 130, "N": 65},
    "bench": {"M": 16, "K": 4096, "N": 6144},
}


def rmsnorm_matmul(x: "f32[M, K]", w: "f32[K, N]", g: "f32[K]") -> "f32[M, N]":
    rms = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    return ((x / rms) * g) @ w
