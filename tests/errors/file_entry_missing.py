# expect: <command line>:1:42: error: no function named 'kernel' (the file defines: helper, k)
# args: check --entry kernel
import numpy as np


def helper(t):
    return t


def k(x: "f32[M, N]"):
    return helper(x)
