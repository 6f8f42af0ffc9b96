# expect: 3:12: error: name 'np' is not defined; add 'import numpy as np'
def k(x: "f32[M, N]"):
    return np.exp(x)
