# expect: 5:26: error: the kernel returns f32[M, N] but the annotation says f16[M, N]
import numpy as np


def k(x: "f32[M, N]") -> "f16[M, N]":
    return x
