# expect: cannot read: Is a directory
# args: run --in x={dir}
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
