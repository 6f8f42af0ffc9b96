"""trn1 emission case: see tests/trn1/check_programs.py. A concatenation kept in
SBUF for the whole kernel with more rows than partitions (300: two full blocks of
128 and a partial one), written in two column ranges and read whole."""
import numpy as np
SIZES = {"test": {"H": 2, "S": 300, "D": 18}}
def rotate_long(x: "f32[H, S, D]", cos: "f32[S, D]", sin: "f32[S, D]") -> "f32[H, S, D]":
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin
