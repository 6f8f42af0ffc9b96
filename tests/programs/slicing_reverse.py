"""Slices with negative steps (reversal)."""
import numpy as np

SIZES = {
    "test": {"M": 5},
    "bench": {"M": 1024},
}


def slicing_reverse(x: "f32[M, 8]") -> "f32[M, 4]":
    flipped = x[::-1, ::-1]           # [M, 8]
    odd = x[:, -2::-2]                # columns 6, 4, 2, 0
    return flipped[:, :4] + odd + x[::-1, 7:3:-1]
