# expect: error: 'abc' is not a valid float for parameter 'eps'
# args: check {prog} --param eps=abc
import numpy as np


def k(x: "f32[M, N]", eps: float = 1e-5):
    return x + eps
