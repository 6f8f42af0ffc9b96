"""Basic indexing: steps, negative indices, open ends, slices bounded by sizes
(x.shape[i] // 2), None (new axis), Ellipsis, integer indices that drop an axis."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 7},
    "bench": {"M": 1024, "N": 1024},
}


def slicing(x: "f32[M, 12]", y: "f32[M, N, 3]"):
    a = x[:, ::3]                     # [M, 4]
    b = x[:, 1::3]
    c = x[:, -4:]
    d = x[:, 2:10:2]
    e = x[:, 4:8] * x[0, :4] + x[-1, -5:-1]       # x[0] drops the row axis
    fixed = a + b - c + d + e                       # [M, 4]

    last = y[..., -1]                 # [M, N]
    first = y[:, :, 0]
    inner = y[1:-1].sum(axis=0)       # [N, 3]
    half = y.shape[1] // 2
    rolled = np.concatenate([y[:, half:], y[:, :half]], axis=1)   # [M, N, 3]
    bcast = (x[:, None, :3] * y[..., :1]).sum(axis=-1)            # [M, N]
    pick = y[None][0, :, :, 1]        # add an axis, then index it away
    out = last + first * x[:, None, 0] + inner[None, :, 1] + rolled.max(axis=-1)
    return fixed, out + bcast - pick
