# expect: 5:10: error: annotation "f32[M, N" must look like "f32[M, N]"
import numpy as np


def k(x: "f32[M, N"):
    return x
