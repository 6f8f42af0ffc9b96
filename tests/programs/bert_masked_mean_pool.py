"""Sentence-embedding mean pooling (BERT/SBERT style): token states averaged
over the positions whose attention mask is on, the count clamped to 1; the
mask arrives as floats and is made boolean by a comparison."""
import numpy as np

SIZES = {
    "test": {"B": 3, "T": 6, "C": 4},
    "bench": {"B": 64, "T": 512, "C": 768},
}


def bert_masked_mean_pool(hidden: "f32[B, T, C]", attention_mask: "f32[B, T]") -> "f32[B, C]":
    keep = attention_mask > 0.0
    summed = np.sum(hidden * keep[:, :, None], axis=1)
    counts = np.maximum(keep.sum(axis=1), 1.0)
    return summed / counts[:, None]
