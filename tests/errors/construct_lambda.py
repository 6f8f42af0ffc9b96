# expect: 7:17: error: <lambda>() takes 1 positional argument but 2 were given
import numpy as np


def k(x: "f32[M, N]"):
    f = lambda t: t * 2.0
    return f(x, x)
