"""trn1 emission case: see tests/trn1/check_programs.py."""
import numpy as np
SIZES = {"test": {"B": 3, "M": 130, "K": 200, "N": 70}}
def bmm_bias(a: "f32[B, M, K]", b: "f32[B, K, N]", bias: "f32[N]") -> "f32[B, M, N]":
    return np.maximum(a @ b + bias, 0.0)
