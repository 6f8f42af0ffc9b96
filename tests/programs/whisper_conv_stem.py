"""Whisper's first convolution over the log-mel frames (kernel 3, padding 1)
as reference code without a conv op writes it: the frames padded with one
zero column on each side by np.pad, then three shifted matmuls, a bias and
GELU, and the result transposed to (time, channels)."""
import numpy as np

SIZES = {
    "test": {"M": 4, "T": 6, "C": 8},
    "bench": {"M": 80, "T": 3000, "C": 384},
}


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def whisper_conv_stem(mel: "f32[M, T]", w: "f32[3, C, M]", b: "f32[C]") -> "f32[T, C]":
    t = mel.shape[1]
    xp = np.pad(mel, ((0, 0), (1, 1)))
    y = w[0] @ xp[:, 0:t] + w[1] @ xp[:, 1:t + 1] + w[2] @ xp[:, 2:t + 2]
    return gelu(y + b[:, None]).T
