# expect: 6:14: error: matmul: operands must have at least one dimension, got f32[M, K] and f32[]
import numpy as np


def k(x: "f32[M, K]"):
    return x @ 2.0
