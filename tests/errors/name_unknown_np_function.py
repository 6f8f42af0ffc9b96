# expect: 6:15: error: np.fft is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return np.fft(x)
