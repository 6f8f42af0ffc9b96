# expect: 10:16: error: recursive call to 'even': helpers are inlined, so they cannot recurse
import numpy as np


def even(t):
    return odd(t - 1.0)


def odd(t):
    return even(t * 0.5)


def k(x: "f32[M, N]"):
    return even(x)
