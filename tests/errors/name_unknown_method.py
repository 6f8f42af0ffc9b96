# expect: 6:14: error: tensors have no attribute 'argmax' in Axon's NumPy subset
import numpy as np


def k(x: "f32[M, N]"):
    return x.argmax(axis=0)
