"""Batched bilinear form with einsum.

y[b, o] = sum_i sum_j x[b, i] * w[o, i, j] * z[b, j]  (+ bias[o])

einsum states the contraction directly; Axon treats it like any other op
(matmul is just the einsum "ij,jk->ik").
"""
import numpy as np

SIZES = {
    "test": {"B": 5, "I": 7, "J": 6, "O": 3},
    "bench": {"B": 256, "I": 512, "J": 512, "O": 64},
}


def bilinear(
    x: "f32[B, I]", w: "f32[O, I, J]", z: "f32[B, J]", bias: "f32[O]"
) -> "f32[B, O]":
    return np.einsum("bi,oij,bj->bo", x, w, z) + bias
