# expect: 6:19: error: np.add.accumulate is not supported; np.cumsum is np.add.accumulate
import numpy as np


def k(x: "f32[M, N]"):
    return np.add.accumulate(x, axis=1)
