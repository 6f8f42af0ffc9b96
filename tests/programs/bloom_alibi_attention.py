"""BLOOM-style attention with ALiBi, written as reference code writes it: the
fused q/k/v projection is cut into q, k and v with np.split, heads are split
off by a reshape with C // n_head, each head's slope scales a distance
matrix, and the heads are merged back."""
import numpy as np

SIZES = {
    "test": {"T": 4, "H": 2, "Dh": 3},
    "bench": {"T": 512, "H": 16, "Dh": 64},
}


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def bloom_alibi_attention(qkv: "f32[T, 3*H*Dh]", slopes: "f32[H]", distance: "f32[T, T]") -> "f32[T, H*Dh]":
    n_tok = qkv.shape[0]
    c = qkv.shape[1] // 3
    n_head = slopes.shape[0]
    head_dim = c // n_head
    q, k, v = np.split(qkv, 3, axis=-1)
    q = q.reshape(n_tok, n_head, head_dim).transpose(1, 0, 2)
    k = k.reshape(n_tok, n_head, head_dim).transpose(1, 0, 2)
    v = v.reshape(n_tok, n_head, head_dim).transpose(1, 0, 2)
    bias = np.expand_dims(slopes, (1, 2)) * distance
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(head_dim) + bias
    out = softmax(scores) @ v
    return out.transpose(1, 0, 2).reshape(n_tok, c)
