# expect: 6:19: error: np.prod: a product along axis 1 of size N is not supported (Axon has no product reduction; products over constant axes of at most 64 are unrolled); for positive values write np.exp(np.sum(np.log(x), axis=...))
import numpy as np


def k(x: "f32[M, N]"):
    return np.prod(x, axis=1)
