# expect: 6:9: error: lambda is not supported; define the helper with def at the top level of the file
import numpy as np


def k(x: "f32[M, N]"):
    f = lambda t: t * 2.0
    return f(x)
