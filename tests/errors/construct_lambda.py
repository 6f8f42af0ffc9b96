# expect: 6:9: error: lambda is not supported
import numpy as np


def k(x: "f32[M, N]"):
    f = lambda t: t * 2.0
    return f(x)
