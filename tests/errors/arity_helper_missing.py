# expect: 10:15: error: add() missing required argument 'b'
import numpy as np


def add(a, b):
    return a + b


def k(x: "f32[M, N]"):
    return add(x)
