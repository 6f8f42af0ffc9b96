"""trn1 emission case: see tests/trn1/check_programs.py."""
import numpy as np
SIZES = {"test": {"M": 300, "N": 20}}
def xtx(x: "f32[M, N]") -> "f32[N, N]":
    return x.T @ x / x.shape[0]
