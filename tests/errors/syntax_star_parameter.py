# expect: 5:7: error: '*' in a parameter list is not supported
import numpy as np


def k(*xs):
    return xs
