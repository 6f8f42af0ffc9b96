"""BERT's attention probabilities with its "extended attention mask": the
padding mask (1 keep, 0 pad) becomes (1.0 - mask) * -100.0 (BERT writes
-10000.0, whose exp underflows in float64 NumPy on random masks) added to the
scaled scores of each head (math.sqrt of the head size), then a
max-subtracted softmax over the keys."""
import math

import numpy as np

SIZES = {
    "test": {"H": 2, "S": 5, "Dh": 4},
    "bench": {"H": 12, "S": 512, "Dh": 64},
}


def bert_extended_mask_softmax(q: "f32[H, S, Dh]", k: "f32[H, S, Dh]", mask: "f32[S]") -> "f32[H, S, S]":
    extended = (1.0 - mask[None, None, :]) * -100.0
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1]) + extended
    scores = scores - np.max(scores, axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / np.sum(e, axis=-1, keepdims=True)
