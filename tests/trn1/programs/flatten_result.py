"""trn1 emission case: see tests/trn1/check_programs.py. The result is the flattened
output of a contraction's epilogue: its stage stores into the result's [B, N] view,
with no scratch buffer and no copy."""
import numpy as np
SIZES = {"test": {"B": 3, "N": 7}}
def flatten_result(x: "f32[B, N]", w: "f32[N, N]") -> "f32[B * N]":
    return (np.exp(x @ w) + 1.0).reshape(-1)
