"""GPT-2 attention scores from a fused QKV projection, the way reference code
writes it: the projection is "f32[T, 3*C]" with C = H*Dh, split into q, k and
v by slicing, heads split off by a reshape, and the result merged back to
"f32[H*T, T]"."""
import numpy as np

SIZES = {
    "test": {"T": 5, "H": 2, "Dh": 3},
    "bench": {"T": 1024, "H": 12, "Dh": 64},
}


def split_heads(x, n_head, head_dim):
    t = x.shape[0]
    return x.reshape(t, n_head, head_dim).transpose(1, 0, 2)


def gpt2_qkv_heads(x: "f32[T, H*Dh]", w_qkv: "f32[H*Dh, 3*H*Dh]", b_qkv: "f32[3*H*Dh]",
                   head_scale: "f32[H, Dh]") -> "f32[H*T, T]":
    n_head, head_dim = head_scale.shape
    c = x.shape[1]
    qkv = x @ w_qkv + b_qkv
    q, k = qkv[:, :c], qkv[:, c:2 * c]
    qh = split_heads(q, n_head, head_dim) * head_scale[:, None, :]
    kh = split_heads(k, n_head, head_dim)
    att = qh @ kh.transpose(0, 2, 1) / np.sqrt(head_dim)
    return att.reshape(n_head * x.shape[0], x.shape[0])
