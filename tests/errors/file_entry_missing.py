# expect: <command line>:1:42: error: no function named 'kernel' in file_entry_missing.py
# args: check --entry kernel
import numpy as np


def helper(t):
    return t


def k(x: "f32[M, N]"):
    return helper(x)
