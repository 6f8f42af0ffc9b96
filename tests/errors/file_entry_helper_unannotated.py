# expect: 6:12: error: kernel parameter 't' needs a type annotation string such as "f32[M, N]"
# args: check --entry helper
import numpy as np


def helper(t):
    return t * 2.0


def k(x: "f32[M, N]"):
    return helper(x)
