# expect: 5:11: error: unknown dtype '' in annotation "[M, N]"
import numpy as np


def k(x: "[M, N]"):
    return x
