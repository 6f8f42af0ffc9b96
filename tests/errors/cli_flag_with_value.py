# expect: <command line>:1:35: error: option --help takes no value
# args: check --help=yes
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
