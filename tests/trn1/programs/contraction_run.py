"""trn1 emission case: see tests/trn1/check_programs.py. Three contractions over
the same rows, batched, in one nest: a low-rank product feeding a contraction as
its stationary side, and a gate read by the last one's epilogue, both kept in
SBUF as whole rows (130 rows: a partial m tile; 600 columns: two n tiles)."""
import numpy as np
SIZES = {"test": {"B": 2, "M": 130, "K": 70, "N": 600, "R": 9}}
def contraction_run(x: "f32[B, M, K]", w: "f32[K, N]", a: "f32[K, R]", b: "f32[R, N]") -> "f32[B, M, N]":
    g = x @ w
    return np.tanh(g) * ((x @ a) @ b) + g
