# expect: 6:5: error: this expression's value is not used; assign it to a name
import numpy as np


def k(x: "f32[M, N]"):
    np.exp(x)
    return x
