# expect: 5:5: error: kernel 'k' does not return a value
import numpy as np


def k(x: "f32[M, N]"):
    y = x + 1.0
