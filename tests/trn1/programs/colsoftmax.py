"""trn1 emission case: see tests/trn1/check_programs.py."""
import numpy as np
SIZES = {"test": {"M": 140, "N": 9}}
def colsoftmax(x: "f32[M, N]") -> "f32[M, N]":
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
