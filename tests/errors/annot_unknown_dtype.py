# expect: 5:11: error: unknown dtype 'f64' in annotation "f64[M, N]"
import numpy as np


def k(x: "f64[M, N]"):
    return x
