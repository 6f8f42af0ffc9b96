# expect: 7:5: error: 'for' loops are not supported: a kernel is a dataflow graph
import numpy as np


def k(x: "f32[M, N]"):
    y = x
    for i in range(3):
        y = y * x
    return y
