"""Rotary position embedding, rotate-half form, in NKI Beta 1.

`out = x * cos + rotate_half(x) * sin` with `rotate_half(x) = concat(-x2, x1)`, x1 and x2 the
first and second halves of the head dimension; `x[H, S, D]`, tables `cos[S, D]` and `sin[S, D]`
shared by all heads (Axon's `rope` benchmark). Follows the description of the nki-samples RoPE
kernels (aws-neuron/nki-samples `src/nki_samples/tutorials/rotary/` and
`contributed/neuron-team-kernels/RoPE.py`, 0898a77: the two halves of the head dimension
combined with element-wise multiplies and adds, the tables reused across heads); the code is our
own, and it puts sequence positions, not the head dimension, on partitions.

Per 128-position tile of the sequence the cos and sin tiles are loaded once and reused by every
head (`nl.affine_range` over heads). For each head, with h = D / 2:

    out[:, :h] = x1 * cos[:, :h] - x2 * sin[:, :h]
    out[:, h:] = x2 * cos[:, h:] + x1 * sin[:, h:]

as one full-width multiply by cos, two half-width multiplies by sin and a subtract and an add
into the halves of the result tile (Vector-engine `tensor_tensor`). D must be even; the partial
last sequence tile is peeled into statically sized code.
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def _rope_positions(x, cos, sin, out, s0, rows):
    """All heads of sequence positions s0:s0+rows."""
    H, _, D = x.shape
    h = D // 2
    cos_tile = nl.load(cos[s0:s0 + rows, 0:D])
    sin_tile = nl.load(sin[s0:s0 + rows, 0:D])
    for head in nl.affine_range(H):
        x_tile = nl.load(x[head, s0:s0 + rows, 0:D])
        x_cos = nisa.tensor_tensor(x_tile, cos_tile, nl.multiply)
        x2_sin = nisa.tensor_tensor(x_tile[:, h:D], sin_tile[:, 0:h], nl.multiply)
        x1_sin = nisa.tensor_tensor(x_tile[:, 0:h], sin_tile[:, h:D], nl.multiply)
        y = nl.ndarray((rows, D), dtype=out.dtype, buffer=nl.sbuf)
        y[:, 0:h] = nisa.tensor_tensor(x_cos[:, 0:h], x2_sin, nl.subtract)
        y[:, h:D] = nisa.tensor_tensor(x_cos[:, h:D], x1_sin, nl.add)
        nl.store(out[head, s0:s0 + rows, 0:D], value=y)


@nki.jit
def rope(x, cos, sin):
    """Rotate-half RoPE of x[H, S, D] with tables cos[S, D], sin[S, D]."""
    H, S, D = x.shape
    assert D % 2 == 0, "the head dimension must be even"
    assert tuple(cos.shape) == (S, D) and tuple(sin.shape) == (S, D)
    out = nl.ndarray((H, S, D), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    for t in nl.affine_range(S // P):
        _rope_positions(x, cos, sin, out, t * P, P)
    if S % P:
        _rope_positions(x, cos, sin, out, S - S % P, S % P)
    return out
