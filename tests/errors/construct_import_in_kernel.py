# expect: 3:5: error: imports belong at the top level of the file
def k(x: "f32[M, N]"):
    import numpy as np
    return np.exp(x)
