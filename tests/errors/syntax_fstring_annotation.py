# expect: 5:10: error: string prefix 'f' is not supported (only plain and r"..." strings)
import numpy as np


def k(x: f"f32[M, N]"):
    return x
