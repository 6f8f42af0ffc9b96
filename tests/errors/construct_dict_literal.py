# expect: 6:9: error: dict literals are only allowed for SIZES
import numpy as np


def k(x: "f32[M, N]"):
    d = {"a": x}
    return x
