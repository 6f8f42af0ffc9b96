# expect: 6:14: error: operator '%' is not supported on tensors
import numpy as np


def k(x: "f32[M, N]"):
    return x % 2.0
