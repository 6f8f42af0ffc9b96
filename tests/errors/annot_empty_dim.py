# expect: 5:18: error: empty dimension in annotation "f32[M, , N]"
import numpy as np


def k(x: "f32[M, , N]"):
    return x
