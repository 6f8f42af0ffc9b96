# expect: 6:15: error: np.float64 is not supported: Axon computes in the parameters' declared dtypes
import numpy as np


def k(x: "f32[M, N]"):
    return np.float64(x)
