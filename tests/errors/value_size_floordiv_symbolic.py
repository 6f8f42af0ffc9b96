# expect: 6:37: error: 'C // H': a symbolic divisor must divide the size exactly as a product (declare the dimension as H*D), or be a constant
import numpy as np


def k(x: "f32[T, C]", s: "f32[H]"):
    head_dim = x.shape[1] // s.shape[0]
    return x.reshape(x.shape[0], s.shape[0], head_dim)
