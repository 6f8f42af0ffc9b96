# expect: 2:8: error: only numpy and math can be imported ('import numpy as np'), not 'torch'
import torch


def k(x: "f32[M, N]"):
    return x
