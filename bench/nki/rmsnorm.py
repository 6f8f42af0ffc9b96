"""RMSNorm `x / sqrt(mean(x^2, axis=1) + eps) * g` in NKI Beta 1, after the NKI RMSNorm tutorial.

Follows the description in aws-neuron-sdk `general/nki/tutorials/rmsnorm.rst` (cca37847), with
eps added (the tutorial has none); the code is our own. Rows of `x[M, N]` go to partitions,
one 128-row tile per iteration of an `nl.affine_range` over ceil(M / 128) tiles; the last,
partial tile is handled with `mask=` predicates (`i * 128 + i_p < M`) on its load, its
instructions and its store. `g[N]` is loaded once, through a `[1, N]` view, and broadcast along
the partitions with `nl.broadcast_to`, outside the loop. A row must fit in one partition.

- `rmsnorm`: the tutorial's `nki.language` form (square, sum, rsqrt, free-axis broadcast
  multiply by the per-row reciprocal, partition-broadcast multiply by g).
- `rmsnorm_isa`: the same schedule in `nki.isa` instructions: the sum of squares as the free
  reduction of a Scalar-engine `activation(square)`, 1/rms as one `activation(rsqrt)` with
  `scale=1/N` and an eps column as `bias`, then `tensor_scalar` and `tensor_tensor` multiplies.
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

EPS = 1e-6


def _gamma_rows(g, rows):
    """g[N] loaded once and broadcast to [rows, N] along the partitions."""
    N = g.shape[0]
    g_row = nl.load(g.reshape((1, N)))
    return nl.broadcast_to(g_row, shape=(rows, N))


@nki.jit
def rmsnorm(x, g):
    """RMSNorm with nki.language operations."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    g_tile = _gamma_rows(g, P)

    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(N)[None, :]
    for t in nl.affine_range((M + P - 1) // P):
        valid = t * P + i_p < M
        x_tile = nl.load(x[t * P + i_p, i_f], mask=valid)
        sq = nl.square(x_tile, mask=valid)
        sum_sq = nl.sum(sq, axis=[1], keepdims=True, mask=valid)
        mean_sq = nl.multiply(sum_sq, 1.0 / N, mask=valid)
        inv_rms = nl.rsqrt(nl.add(mean_sq, EPS, mask=valid), mask=valid)
        y = nl.multiply(x_tile, inv_rms, mask=valid)
        y = nl.multiply(y, g_tile, mask=valid)
        nl.store(out[t * P + i_p, i_f], value=y, mask=valid)
    return out


@nki.jit
def rmsnorm_isa(x, g):
    """RMSNorm with nki.isa instructions (Scalar-engine square+sum and rsqrt, Vector multiplies)."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    g_tile = _gamma_rows(g, P)
    eps_col = nisa.memset((P, 1), EPS, nl.float32)

    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(N)[None, :]
    for t in nl.affine_range((M + P - 1) // P):
        valid = t * P + i_p < M
        x_tile = nl.load(x[t * P + i_p, i_f], mask=valid)
        sum_sq = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(op=nl.square, data=x_tile, reduce_op=nl.add, reduce_res=sum_sq,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce, mask=valid, dtype=nl.float32)
        inv_rms = nisa.activation(op=nl.rsqrt, data=sum_sq, scale=1.0 / N, bias=eps_col, mask=valid)
        y = nisa.tensor_scalar(x_tile, nl.multiply, inv_rms, mask=valid, dtype=nl.float32)
        y = nisa.tensor_tensor(y, g_tile, nl.multiply, mask=valid, dtype=x.dtype)
        nl.store(out[t * P + i_p, i_f], value=y, mask=valid)
    return out
