# expect: 6:29: error: transpose: 2 axes given for a tensor of rank 3
import numpy as np


def k(x: "f32[M, N, P]"):
    return np.transpose(x, (1, 0))
