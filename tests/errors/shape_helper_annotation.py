# expect: 10:16: error: argument 'v' of row() is f32[M, N] but its annotation says f32[3]
import numpy as np


def row(v: "f32[3]"):
    return v * 2.0


def k(x: "f32[M, N]"):
    return row(x)
