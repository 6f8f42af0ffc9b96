# expect: 6:26: error: np.arange needs an integer or a size (np.arange(S), np.arange(x.shape[0])), not the number 4.5
import numpy as np


def k(x: "f32[N]"):
    return x + np.arange(4.5).sum()
