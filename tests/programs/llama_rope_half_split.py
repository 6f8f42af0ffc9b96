"""LLaMA rotary embedding in the Hugging Face form: rotate_half cuts the last
axis in two with np.split and swaps the halves, then the rotated queries and
keys are scored against each other (the last two axes of k swapped)."""
import numpy as np

SIZES = {
    "test": {"H": 2, "T": 5, "R": 3},
    "bench": {"H": 32, "T": 512, "R": 64},
}


def rotate_half(x):
    x1, x2 = np.split(x, 2, axis=-1)
    return np.concatenate((-x2, x1), axis=-1)


def llama_rope_half_split(q: "f32[H, T, 2*R]", k: "f32[H, T, 2*R]", cos: "f32[T, 2*R]",
                          sin: "f32[T, 2*R]") -> "f32[H, T, T]":
    q_rot = q * cos + rotate_half(q) * sin
    k_rot = k * cos + rotate_half(k) * sin
    return q_rot @ k_rot.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
