# expect: 6:14: error: matmul: shapes f32[M, K] and f32[N, K] do not align: K vs N
import numpy as np


def k(x: "f32[M, K]", w: "f32[N, K]"):
    return x @ w
