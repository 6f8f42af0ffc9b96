# expect: 5:26: error: the kernel returns f32[N, M] but the annotation says f32[M, N]
import numpy as np


def k(x: "f32[M, N]") -> "f32[M, N]":
    return x.T
