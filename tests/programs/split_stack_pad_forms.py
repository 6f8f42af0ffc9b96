"""The less common spellings of splitting, stacking, padding and axes of size
1, checked against NumPy: np.split at indices, np.array_split into unequal
parts (of a symbolic length), np.stack on the last axis, np.hstack of vectors,
np.vstack, squeeze without an axis, np.expand_dims with two axes, ravel,
np.pad with one width and a fill value, np.prod and np.minimum.reduce."""
import numpy as np

SIZES = {
    "test": {"M": 3, "N": 5},
    "bench": {"M": 256, "N": 1023},
}


def split_stack_pad_forms(x: "f32[M, 6]", v: "f32[N]",
                          s: "f32[1, M, 1]") -> ("f32[M, 6]", "f32[N + 2]", "f32[M + 2, 8]"):
    a, b, c = np.split(x, [1, 3], axis=1)
    head, tail = np.array_split(v, 2)
    pairs = np.stack([a[:, 0], b[:, 1], c[:, 2]], axis=-1)
    rows = np.vstack([x[0], np.minimum.reduce(x, axis=0)])
    scale = np.expand_dims(s.squeeze(), (0, 2)).ravel()[:, None]
    joined = np.hstack([head * np.prod(tail[:1]), tail, v[:2]])
    padded = np.pad(x * scale, 1, constant_values=-0.5)
    return np.hstack([pairs, pairs * rows.sum(axis=0)[:3]]), joined, padded
