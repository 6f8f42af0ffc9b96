"""BLOOM-style attention probabilities with ALiBi, written as reference code
writes them: the fused q/k projection is cut into q and k with np.split,
heads are split off by a reshape with C // n_head, and each head's slope
scales a distance matrix added to the scores before the softmax."""
import numpy as np

SIZES = {
    "test": {"T": 4, "H": 2, "Dh": 3},
    "bench": {"T": 512, "H": 16, "Dh": 64},
}


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def bloom_alibi_attention(qk: "f32[T, 2*H*Dh]", slopes: "f32[H]", distance: "f32[T, T]") -> "f32[H, T, T]":
    n_tok = qk.shape[0]
    c = qk.shape[1] // 2
    n_head = slopes.shape[0]
    head_dim = c // n_head
    q, k = np.split(qk, 2, axis=-1)
    q = q.reshape(n_tok, n_head, head_dim).transpose(1, 0, 2)
    k = k.reshape(n_tok, n_head, head_dim).transpose(1, 0, 2)
    bias = np.expand_dims(slopes, (1, 2)) * distance
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(head_dim) + bias
    return softmax(scores)
