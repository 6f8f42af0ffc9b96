"""BERT's final layer norm, pooler and classifier: keepdims=1 as some
reference code spells it, the [CLS] token taken with a slice of length 1 and
squeezed, a tanh pooler and a two-way classifier."""
import numpy as np

SIZES = {
    "test": {"B": 2, "S": 4, "D": 6},
    "bench": {"B": 32, "S": 128, "D": 768},
}


def layer_norm(x, g, b, eps=1e-12):
    mu = np.mean(x, axis=-1, keepdims=1)
    var = np.mean((x - mu) ** 2, axis=-1, keepdims=1)
    return (x - mu) / np.sqrt(var + eps) * g + b


def bert_pooler_squeeze(hidden: "f32[B, S, D]", g: "f32[D]", b: "f32[D]", w_pool: "f32[D, D]",
                        b_pool: "f32[D]", w_cls: "f32[D, 2]") -> "f32[B, 2]":
    h = layer_norm(hidden, g, b)
    first = np.squeeze(h[:, :1, :], axis=1)
    pooled = np.tanh(first @ w_pool + b_pool)
    return pooled @ w_cls
