# expect: 6:15: error: np.cos is not supported: the prover and the targets have no cosine yet; pass a precomputed table (e.g. rotary sin/cos) as an input
import numpy as np


def k(x: "f32[M, N]"):
    return np.cos(x)
