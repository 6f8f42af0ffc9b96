# expect: 6:16: error: hexadecimal, octal and binary literals are not supported
import numpy as np


def k(x: "f32[M, N]"):
    return x * 0x10
