# expect: 6:5: error: 'else' without a matching 'if'
import numpy as np


def k(x: "f32[M, N]"):
    else:
        return x
