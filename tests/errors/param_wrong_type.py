# expect: 5:32: error: kernel parameter 'n: int' cannot be the number 2.5
import numpy as np


def k(x: "f32[M, N]", n: int = 2.5):
    return x * n
