# expect: 5:18: error: SIZES["test"] must be a dict of sizes
import numpy as np


SIZES = {"test": 4}


def k(x: "f32[M, N]"):
    return x
