# expect: 6:22: error: .squeeze: cannot squeeze axis 0 of f32[M, 1]: its size is M, not 1 (a symbolic size is not known to be 1; write 1 in the annotation)
import numpy as np


def k(x: "f32[M, 1]"):
    return x.squeeze(0)
