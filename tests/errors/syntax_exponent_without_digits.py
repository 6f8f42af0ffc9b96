# expect: 6:16: error: malformed number: exponent has no digits
import numpy as np


def k(x: "f32[M, N]"):
    return x * 1.5e
