"""LayerNorm `(x - mean) / sqrt(var + eps) * g + b` in NKI Beta 1, after the NKI LayerNorm tutorial.

Follows the description in aws-neuron-sdk `general/nki/tutorials/layernorm.rst` (cca37847); the
code is our own. Rows of `x[M, N]` on partitions, one 128-row tile per iteration of an
`nl.affine_range` over ceil(M / 128); the partial last tile is masked (`i * 128 + i_p < M`) on
its load, instructions and store. `g` and `b` are loaded once through `[1, N]` views and
broadcast along the partitions with `nl.broadcast_to`. A row must fit in one partition.

- `layernorm_v1`: `nki.language` only; the mean with `nl.mean`, then a second pass over the
  centred tile for the variance (`nl.mean` of its square), rsqrt(var + eps), shift/scale as two
  free-axis broadcast operations, then g and b.
- `layernorm_v2`: mean and variance from `nisa.bn_stats` over chunks of at most
  `nl.tile_size.bn_stats_fmax` (512) elements, each writing its 6 statistics at its own offset of
  one SBUF tile, aggregated by one `nisa.bn_aggr`; then the shift and scale of the row in a
  single `nisa.tensor_scalar` with two operators (subtract mean, multiply by 1/std).
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

EPS = 1e-5


def _broadcast_rows(v, rows):
    """v[N] loaded once and broadcast to [rows, N] along the partitions."""
    N = v.shape[0]
    return nl.broadcast_to(nl.load(v.reshape((1, N))), shape=(rows, N))


@nki.jit
def layernorm_v1(x, g, b):
    """LayerNorm with nki.language operations: mean, then variance of the centred rows."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    g_tile = _broadcast_rows(g, P)
    b_tile = _broadcast_rows(b, P)

    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(N)[None, :]
    for t in nl.affine_range((M + P - 1) // P):
        valid = t * P + i_p < M
        x_tile = nl.load(x[t * P + i_p, i_f], mask=valid)
        mean = nl.mean(x_tile, axis=[1], keepdims=True, mask=valid)
        centred = nl.subtract(x_tile, mean, mask=valid)
        var = nl.mean(nl.square(centred, mask=valid), axis=[1], keepdims=True, mask=valid)
        inv_std = nl.rsqrt(nl.add(var, EPS, mask=valid), mask=valid)
        y = nl.multiply(centred, inv_std, mask=valid)
        y = nl.multiply(y, g_tile, mask=valid)
        y = nl.add(y, b_tile, mask=valid)
        nl.store(out[t * P + i_p, i_f], value=y, mask=valid)
    return out


@nki.jit
def layernorm_v2(x, g, b):
    """LayerNorm with bn_stats/bn_aggr statistics and one two-operator tensor_scalar."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    F = nl.tile_size.bn_stats_fmax
    f_full, f_rest = N // F, N % F
    n_chunks = f_full + (1 if f_rest else 0)
    g_tile = _broadcast_rows(g, P)
    b_tile = _broadcast_rows(b, P)

    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(N)[None, :]
    for t in nl.affine_range((M + P - 1) // P):
        valid = t * P + i_p < M
        x_tile = nl.load(x[t * P + i_p, i_f], mask=valid)

        stats = nl.ndarray((P, 6 * n_chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(f_full):
            stats[:, c * 6:(c + 1) * 6] = nisa.bn_stats(x_tile[:, c * F:(c + 1) * F], mask=valid, dtype=nl.float32)
        if f_rest:
            stats[:, f_full * 6:n_chunks * 6] = nisa.bn_stats(x_tile[:, f_full * F:N], mask=valid,
                                                              dtype=nl.float32)
        mean_var = nisa.bn_aggr(stats, mask=valid)  # [P, 2]: mean, variance
        mean = mean_var[:, 0:1]
        inv_std = nl.rsqrt(nl.add(mean_var[:, 1:2], EPS, mask=valid), mask=valid)

        y = nisa.tensor_scalar(x_tile, op0=nl.subtract, operand0=mean, op1=nl.multiply, operand1=inv_std,
                               mask=valid, dtype=nl.float32)
        y = nisa.tensor_tensor(y, g_tile, nl.multiply, mask=valid)
        y = nisa.tensor_tensor(y, b_tile, nl.add, mask=valid, dtype=x.dtype)
        nl.store(out[t * P + i_p, i_f], value=y, mask=valid)
    return out
