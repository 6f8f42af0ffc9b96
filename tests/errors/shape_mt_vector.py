# expect: 6:14: error: x.mT needs at least two dimensions, not f32[N]
import numpy as np


def k(x: "f32[N]"):
    return x.mT
