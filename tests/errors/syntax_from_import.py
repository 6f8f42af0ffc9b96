# expect: 2:1: error: 'from ... import' is not supported; write 'import numpy as np'
from numpy import exp


def k(x: "f32[M, N]"):
    return exp(x)
