"""A LLaMA-style pre-norm MLP block whose options are keyword parameters
resolved when the kernel is built: an optional bias (None), a flag choosing
SiLU or GELU, a residual switch, local annotations and conditional
expressions."""
import numpy as np

SIZES = {
    "test": {"T": 5, "D": 12, "F": 20},
    "bench": {"T": 512, "D": 1024, "F": 2816},
}


def rms_norm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


def activation(h, use_silu=True):
    if use_silu:
        return h / (1.0 + np.exp(-h))
    c = np.sqrt(2.0 / np.pi)
    return 0.5 * h * (1.0 + np.tanh(c * (h + 0.044715 * h**3)))


def llama_block_options(x: "f32[T, D]", norm_w: "f32[D]", w_up: "f32[D, F]", w_down: "f32[F, D]",
                        eps: float = 1e-6, use_silu: bool = True, residual: bool = True, bias=None,
                        n_layers: int = 2) -> "f32[T, D]":
    h: "f32[T, D]" = rms_norm(x, norm_w, eps=eps)
    up: np.ndarray = h @ w_up
    if bias is not None:
        up = up + bias
    elif n_layers > 1 and not residual:
        up = up * 0.5
    else:
        pass
    act = activation(up, use_silu=use_silu)
    scale = 1.0 / n_layers if n_layers > 0 else 1.0
    out = (act @ w_down) * scale
    if residual:
        return x + out
    return out
