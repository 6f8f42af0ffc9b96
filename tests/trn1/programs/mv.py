"""trn1 emission case: see tests/trn1/check_programs.py."""
import numpy as np
SIZES = {"test": {"M": 129, "K": 700}}
def mv(w: "f32[M, K]", v: "f32[K]") -> "f32[M]":
    return w @ v + 1.0
