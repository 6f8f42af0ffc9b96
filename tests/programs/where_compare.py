"""np.where with every comparison, scalars on either side of the comparison,
scalar branches, and a broadcast condition."""
import numpy as np

SIZES = {
    "test": {"M": 7, "N": 13},
    "bench": {"M": 1024, "N": 1024},
}


def where_compare(x: "f32[M, N]", y: "f32[M, N]", t: "f32[N]") -> "f32[M, N]":
    relu = np.where(x > 0.0, x, 0.0)
    a = np.where(x < y, y, x)
    b = np.where(x >= t, 1.0, -1.0)              # condition broadcast from [N]
    c = np.where(y <= -0.5, x * y, y)
    mx = np.maximum(x, y)
    d = np.where(mx == x, x, -y)
    e = np.where(x != mx, 2.0 * x, 0.5)
    f = np.where(0.25 < x, x, t)                 # scalar on the left, branch [N]
    guarded = np.where(x > 0.0, np.sqrt(np.abs(x)), -np.log(np.abs(x) + 1.0))
    return relu + a + b + c + d + e + f + guarded
