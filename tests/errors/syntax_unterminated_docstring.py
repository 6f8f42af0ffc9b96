# expect: 6:5: error: unterminated string
import numpy as np


def k(x: "f32[M, N]"):
    """Adds one.
    return x + 1.0
