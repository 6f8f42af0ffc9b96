"""scale.py with the wrong constant: refuted."""
import numpy as np


def scale_wrong(x: "f32[M, N]", g: "f32[N]") -> "f32[M, N]":
    return x * g + 2.0
