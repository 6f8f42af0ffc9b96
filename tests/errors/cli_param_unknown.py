# expect: error: kernel 'k' has no non-tensor parameter named 'x'
# args: check {prog} --param x=1
import numpy as np


def k(x: "f32[M, N]", eps: float = 1e-5):
    return x + eps
