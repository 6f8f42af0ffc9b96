# expect: 5:37: error: expected ':', found end of line
import numpy as np


def k(x: "f32[M, N]") -> "f32[M, N]"
    return x
