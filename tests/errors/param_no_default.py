# expect: 5:23: error: kernel parameter 'eps: float' needs a default value (non-tensor parameters are fixed when the kernel is built; give one with --param eps=VALUE)
import numpy as np


def k(x: "f32[M, N]", eps: float):
    return x + eps
