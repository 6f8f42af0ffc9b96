"""An MLP-Mixer token-mixing block on one image's patches: the MLP runs across
patches on x.T (patches last), the result is transposed back and
added, and the classifier reads the flattened tokens (x.flatten())."""
import numpy as np

SIZES = {
    "test": {"P": 4, "C": 3, "F": 5, "K": 2},
    "bench": {"P": 196, "C": 512, "F": 256, "K": 1000},
}


def mlp_mixer_flatten_head(x: "f32[P, C]", w1: "f32[P, F]", w2: "f32[F, P]", w_head: "f32[P*C, K]") -> "f32[K]":
    y = np.maximum(x.T @ w1, 0) @ w2
    x = x + y.T
    return x.flatten() @ w_head
