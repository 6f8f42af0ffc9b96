# expect: 7:1: error: expected an indented block, found 'return'
import numpy as np


def k(x: "f32[M, N]"):

return x
