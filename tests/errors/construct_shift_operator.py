# expect: 6:20: error: bitwise operator '<<' is not supported
import numpy as np


def k(x: "f32[M, N]"):
    return (x > 0) << 1
