# expect: 7:21: error: math.cos is not supported (math.pi, math.e, math.tau, math.inf, math.sqrt, math.exp, math.log, math.tanh and math.fabs are)
import math
import numpy as np


def k(x: "f32[M, N]"):
    return x * math.cos(1.0)
