# expect: 9:1: error: only imports, defs, constants and docstrings may appear at the top level
import numpy as np


def k(x: "f32[M, N]"):
    return x


print(k)
