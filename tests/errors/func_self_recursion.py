# expect: 6:13: error: recursive call to 'f': helpers are inlined, so they cannot recurse
import numpy as np


def f(t):
    return f(t) + 1.0


def k(x: "f32[M, N]"):
    return f(x)
