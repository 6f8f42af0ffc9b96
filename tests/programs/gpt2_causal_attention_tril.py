"""GPT-2 causal self-attention as nanoGPT's reference code writes it: a fused
QKV projection split into heads, the scores masked with a lower-triangular
np.tril(np.ones(...)) buffer and filled with float("-inf") where the mask is
0, a softmax over keys, and the heads merged and projected back.
Two heads: the embedding is annotated 2*Dh so that c // n_head is Dh."""
import numpy as np

SIZES = {
    "test": {"T": 6, "Dh": 4},
    "bench": {"T": 256, "Dh": 64},
}


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def gpt2_causal_attention_tril(x: "f32[T, 2*Dh]", w_attn: "f32[2*Dh, 6*Dh]", w_proj: "f32[2*Dh, 2*Dh]",
                               n_head: int = 2) -> "f32[T, 2*Dh]":
    t, c = x.shape
    hd = c // n_head
    qkv = x @ w_attn
    q, k, v = qkv[:, :c], qkv[:, c:2 * c], qkv[:, 2 * c:]
    q = q.reshape(t, n_head, hd).transpose(1, 0, 2)
    k = k.reshape(t, n_head, hd).transpose(1, 0, 2)
    v = v.reshape(t, n_head, hd).transpose(1, 0, 2)
    bias = np.tril(np.ones((t, t)))
    att = (q @ k.transpose(0, 2, 1)) * (1.0 / np.sqrt(hd))
    att = np.where(bias[None, :, :] == 0, float("-inf"), att)
    att = softmax(att)
    y = (att @ v).transpose(1, 0, 2).reshape(t, c)
    return y @ w_proj
