# expect: 10:22: error: double() takes 1 positional argument but 2 were given
import numpy as np


def double(a):
    return a * 2.0


def k(x: "f32[M, N]"):
    return double(x, x)
