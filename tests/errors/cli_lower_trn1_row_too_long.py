# expect: cli_lower_trn1_row_too_long.py:6:5: error: trn1: a row of 100000 elements to fold or scan does not fit in one SBUF partition (cumsum); folding across free tiles is not built yet
# args: lower --dims M=4,N=100000 --target trn1
import numpy as np


def f(x: "f32[M, N]") -> "f32[M, N]":
    return np.cumsum(x, axis=1)
