"""A linear layer with a low-rank (LoRA) update: x @ w + (x @ a) @ b."""
import numpy as np

SIZES = {
    "test": {"M": 7, "K": 65, "N": 48, "R": 5},
    "bench": {"M": 512, "K": 1024, "N": 4096, "R": 16},
}


def lora(x: "f32[M, K]", w: "f32[K, N]", a: "f32[K, R]", b: "f32[R, N]") -> "f32[M, N]":
    return x @ w + (x @ a) @ b
