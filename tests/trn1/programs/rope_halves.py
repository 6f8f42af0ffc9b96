"""trn1 emission case: see tests/trn1/check_programs.py. Rotate-half RoPE written
with the concatenation outermost: both halves read both halves of x's rows."""
import numpy as np
SIZES = {"test": {"H": 3, "S": 140, "E": 9}}
def rope_halves(x: "f32[H, S, 2 * E]", cos: "f32[S, 2 * E]", sin: "f32[S, 2 * E]") -> "f32[H, S, 2 * E]":
    h = x.shape[-1] // 2
    x1 = x[..., :h]
    x2 = x[..., h:]
    return np.concatenate([x1 * cos[:, :h] - x2 * sin[:, :h], x2 * cos[:, h:] + x1 * sin[:, h:]], axis=-1)
