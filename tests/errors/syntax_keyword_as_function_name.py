# expect: 5:5: error: expected a function name, found 'return'
import numpy as np


def return(x: "f32[M, N]"):
    return x
