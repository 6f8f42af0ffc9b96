"""The sum of x taken in two halves: equal to np.sum(x), but splitting a sum
at N // 2 is not one of the prover's laws."""
import numpy as np


def halves(x: "f32[N]") -> "f32[]":
    return np.sum(x[: x.shape[0] // 2]) + np.sum(x[x.shape[0] // 2 :])
