# expect: 6:28: error: np.full: the fill value must be a number, not a tensor f32[N] (np.broadcast_to broadcasts a tensor)
import numpy as np


def k(x: "f32[N]"):
    return np.full((3, 4), x)
