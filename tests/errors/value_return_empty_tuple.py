# expect: 6:12: error: kernel 'k' returns an empty tuple
import numpy as np


def k(x: "f32[M, N]"):
    return ()
