# expect: 6:12: error: unknown name 'exp'; did you mean np.exp?
import numpy as np


def k(x: "f32[M, N]"):
    return exp(x)
