# expect: 5:7: error: expected '(', found 'x'
import numpy as np


def k x:
    return x
