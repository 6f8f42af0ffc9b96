# expect: 5:19: error: size names in SIZES must be strings holding identifiers
import numpy as np


SIZES = {"test": {"M N": 4}}


def k(x: "f32[M, N]"):
    return x
