# expect: cli_lower_trn1_scan.py:6:5: error: trn1 lowering of scans is not built yet (cumsum)
# args: lower --dims M=2,N=3
import numpy as np


def k(x: "f32[M, N]"):
    return np.cumsum(x, axis=1)
