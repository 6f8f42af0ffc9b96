# expect: 6:14: error: cannot broadcast shapes f32[M] and f32[N]
import numpy as np


def k(x: "f32[M]", y: "f32[N]"):
    return x * y
