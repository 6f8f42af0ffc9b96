"""Materialized 2-D transpose `x.T` on the Tensor engine, in NKI Beta 1.

Follows the description of `nki.isa.nc_transpose` (aws-neuron-sdk `general/nki/api/nki/isa/__init__.py`
at cca37847: a PF-transpose of a tile up to 128 x 128, done as a matmul against an identity,
reading SBUF and writing PSUM). The plan: load row blocks contiguously, transpose each 128 x 128
block on the Tensor engine, evacuate PSUM to SBUF, store contiguous rows of the output, so no DMA
moves single elements. The code is our own.

Any M and N: full 128 x 128 blocks run in `nl.affine_range` loops and the partial last block
row/column is peeled into statically sized calls (no masks).
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def _transpose_block(x, out, m0, rows, n0, cols):
    """out[n0:n0+cols, m0:m0+rows] = x[m0:m0+rows, n0:n0+cols].T, rows and cols <= 128."""
    block = nl.load(x[m0:m0 + rows, n0:n0 + cols])
    block_t = nisa.nc_transpose(block, engine=nisa.tensor_engine)  # PSUM [cols, rows]
    block_t_sbuf = nisa.tensor_copy(block_t, dtype=out.dtype)
    nl.store(out[n0:n0 + cols, m0:m0 + rows], value=block_t_sbuf)


@nki.jit
def transpose(x):
    """x[M, N] -> x.T[N, M], 128 x 128 blocks through nc_transpose."""
    M, N = x.shape
    out = nl.ndarray((N, M), dtype=x.dtype, buffer=nl.shared_hbm)
    T = nl.tile_size.pmax
    m_full, m_rest = M // T, M % T
    n_full, n_rest = N // T, N % T

    for i in nl.affine_range(m_full):
        for j in nl.affine_range(n_full):
            _transpose_block(x, out, i * T, T, j * T, T)
        if n_rest:
            _transpose_block(x, out, i * T, T, n_full * T, n_rest)
    if m_rest:
        for j in nl.affine_range(n_full):
            _transpose_block(x, out, m_full * T, m_rest, j * T, T)
        if n_rest:
            _transpose_block(x, out, m_full * T, m_rest, n_full * T, n_rest)
    return out
