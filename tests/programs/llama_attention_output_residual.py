"""The end of a LLaMA attention block: the heads (H, S, Dh) moved back to
(S, H*Dh) with transpose and reshape, the output projection o_proj, and the
residual add; then the post-attention RMSNorm with its own weight."""
import numpy as np

SIZES = {
    "test": {"H": 2, "S": 5, "Dh": 3},
    "bench": {"H": 32, "S": 512, "Dh": 128},
}


def rms_norm(x, weight, eps=1e-6):
    return weight * (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps))


def llama_attention_output_residual(attn: "f32[H, S, Dh]", o_proj: "f32[H*Dh, H*Dh]", residual: "f32[S, H*Dh]",
                                    post_norm: "f32[H*Dh]") -> "f32[S, H*Dh]":
    n_heads, seq, head_dim = attn.shape
    merged = np.transpose(attn, (1, 0, 2)).reshape(seq, n_heads * head_dim)
    hidden = residual + merged @ o_proj
    return rms_norm(hidden, post_norm)
