# expect: 6:14: error: cannot broadcast shapes f32[M, 3] and f32[M, 4]
import numpy as np


def k(x: "f32[M, 3]", y: "f32[M, 4]"):
    return x + y
