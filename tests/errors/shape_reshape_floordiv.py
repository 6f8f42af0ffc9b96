# expect: 7:21: error: cannot reshape f32[T, C] to [T, 4, C//4]: C//4 is a floor division, exact only for some sizes; declare the divided dimension as a product (such as "f32[T, 4*D]") so that the division is exact
import numpy as np


def k(x: "f32[T, C]", n_head: int = 4):
    t, c = x.shape
    return x.reshape(t, n_head, c // n_head)
