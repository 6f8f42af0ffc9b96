# expect: error: --param wants NAME=VALUE (e.g. eps=1e-5), not 'eps'
# args: check {prog} --param eps
import numpy as np


def k(x: "f32[M, N]", eps: float = 1e-5):
    return x + eps
