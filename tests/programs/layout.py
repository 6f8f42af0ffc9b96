"""Layout ops: transpose with permutations (method, np function, tuple or
varargs), x.T on rank 3, swapaxes, reshape with -1 and with sizes computed
from x.shape, and broadcast_to."""
import numpy as np

SIZES = {
    "test": {"A": 3, "B": 5, "C": 7},
    "bench": {"A": 64, "B": 128, "C": 256},
}


def layout(x: "f32[A, B, C]", y: "f32[C, A]") -> "f32[B, A, C]":
    t1 = x.transpose(1, 0, 2)                        # [B, A, C]
    t2 = np.transpose(x, (1, 0, 2))
    t3 = np.swapaxes(x, 0, 1)
    t4 = x.transpose((1, 0, 2))
    t5 = x.T.transpose(1, 2, 0)                      # x.T reverses all axes: [C, B, A]
    t6 = np.transpose(np.transpose(x))               # reverse twice: [A, B, C]
    r1 = x.reshape(x.shape[0] * x.shape[1], -1)      # [A*B, C]
    r2 = np.reshape(r1, (x.shape[0], x.shape[1], x.shape[2]))   # [A, B, C]
    flat = np.reshape(x, (-1,))                      # [A*B*C]
    rein = flat.reshape(x.shape[1], x.shape[0], -1)  # the same data re-read as [B, A, C]
    yb = np.broadcast_to(y.T, (x.shape[1], x.shape[0], x.shape[2]))   # [B, A, C]
    return t1 + t2 - t3 + t4 + t5 + np.swapaxes(t6 + r2, 1, 0) + 0.5 * rein + yb
