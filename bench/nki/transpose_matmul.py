"""Hand-written NKI Beta 1 baselines for Axon's `transpose_matmul` and `matmul` benchmarks.

- `transpose_matmul(a[K, M], b[K, N]) = a.T @ b`: the layout of the NKI matmul tutorial
  (aws-neuron-sdk `general/nki/tutorials/matrix_multiplication.rst`, cca37847), here for any
  M, N, K: the tutorial's hoisted-load structure (lhsT tiles of one M tile loaded once, before the
  N loop), with the partial last tile of each dimension peeled into statically sized code. A
  partial K tile is one more `nc_matmul` with fewer partitions added into the same PSUM tile.
- `matmul(a[M, K], b[K, N]) = a @ b`: the stationary operand must have K on partitions, so each
  row block of `a` is loaded contiguously and its 128 x 128 pieces are transposed on the Tensor
  engine (`nisa.nc_transpose`, SBUF -> PSUM, then copied to SBUF), once per M tile, instead of
  loading `a` with an element-strided transposing DMA.

The code is our own. Tiles: K 128 (partitions), M 128 (stationary free size), N 512 (moving free
size, one PSUM bank of f32).
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def _splits(extent, tile):
    """(number of full tiles, size of the partial last tile or 0)."""
    return extent // tile, extent % tile


def _mm_tile(lhsT_tiles, rhs, out, m0, tm, n0, tn, K):
    """out[m0:m0+tm, n0:n0+tn] = sum over K tiles of lhsT_tiles[k].T @ rhs[k-rows, n0:n0+tn]."""
    TK = nl.tile_size.pmax
    k_full, k_rest = _splits(K, TK)
    acc = nl.zeros((tm, tn), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(k_full):
        rhs_tile = nl.load(rhs[k * TK:(k + 1) * TK, n0:n0 + tn])
        acc += nisa.nc_matmul(lhsT_tiles[k, :, 0:tm], rhs_tile)
    if k_rest:
        rhs_tile = nl.load(rhs[k_full * TK:K, n0:n0 + tn])
        acc += nisa.nc_matmul(lhsT_tiles[k_full, 0:k_rest, 0:tm], rhs_tile)
    res = nl.copy(acc, dtype=out.dtype)
    nl.store(out[m0:m0 + tm, n0:n0 + tn], value=res)


def _mm_row_block(lhsT_tiles, rhs, out, m0, tm, K, N):
    """All N tiles of output rows m0:m0+tm, given that row block's stationary tiles."""
    TN = nl.tile_size.gemm_moving_fmax
    n_full, n_rest = _splits(N, TN)
    for n in nl.affine_range(n_full):
        _mm_tile(lhsT_tiles, rhs, out, m0, tm, n * TN, TN, K)
    if n_rest:
        _mm_tile(lhsT_tiles, rhs, out, m0, tm, n_full * TN, n_rest, K)


def _load_lhsT_tiles(a, m0, tm, K):
    """The K tiles of columns m0:m0+tm of a[K, M], as a (K tiles, par_dim(128), 128) block tensor."""
    TK = nl.tile_size.pmax
    k_full, k_rest = _splits(K, TK)
    tiles = nl.ndarray((k_full + (1 if k_rest else 0), nl.par_dim(TK), nl.tile_size.gemm_stationary_fmax),
                       dtype=a.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_full):
        tiles[k, :, 0:tm] = nl.load(a[k * TK:(k + 1) * TK, m0:m0 + tm])
    if k_rest:
        tiles[k_full, 0:k_rest, 0:tm] = nl.load(a[k_full * TK:K, m0:m0 + tm])
    return tiles


@nki.jit
def transpose_matmul(a, b):
    """a[K, M].T @ b[K, N] for any sizes."""
    K, M = a.shape
    K_b, N = b.shape
    assert K == K_b
    out = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    TM = nl.tile_size.gemm_stationary_fmax
    m_full, m_rest = _splits(M, TM)

    for m in nl.affine_range(m_full):
        lhsT_tiles = _load_lhsT_tiles(a, m * TM, TM, K)
        _mm_row_block(lhsT_tiles, b, out, m * TM, TM, K, N)
    if m_rest:
        lhsT_tiles = _load_lhsT_tiles(a, m_full * TM, m_rest, K)
        _mm_row_block(lhsT_tiles, b, out, m_full * TM, m_rest, K, N)
    return out


def _transposed_row_block(a, m0, tm, K):
    """The K tiles of a[m0:m0+tm, :].T, transposed on the Tensor engine: (K tiles, par_dim(128), 128)."""
    TK = nl.tile_size.pmax
    k_full, k_rest = _splits(K, TK)
    rows = nl.load(a[m0:m0 + tm, 0:K])  # [tm, K], contiguous rows
    tiles = nl.ndarray((k_full + (1 if k_rest else 0), nl.par_dim(TK), nl.tile_size.gemm_stationary_fmax),
                       dtype=a.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_full):
        piece_t = nisa.nc_transpose(rows[:, k * TK:(k + 1) * TK], engine=nisa.tensor_engine)  # PSUM [TK, tm]
        tiles[k, :, 0:tm] = nisa.tensor_copy(piece_t, dtype=a.dtype)
    if k_rest:
        piece_t = nisa.nc_transpose(rows[:, k_full * TK:K], engine=nisa.tensor_engine)  # PSUM [k_rest, tm]
        tiles[k_full, 0:k_rest, 0:tm] = nisa.tensor_copy(piece_t, dtype=a.dtype)
    return tiles


@nki.jit
def matmul(a, b):
    """a[M, K] @ b[K, N] for any sizes; a's tiles transposed by nc_transpose once per M tile."""
    M, K = a.shape
    K_b, N = b.shape
    assert K == K_b
    out = nl.ndarray((M, N), dtype=a.dtype, buffer=nl.shared_hbm)
    TM = nl.tile_size.gemm_stationary_fmax
    m_full, m_rest = _splits(M, TM)

    for m in nl.affine_range(m_full):
        lhsT_tiles = _transposed_row_block(a, m * TM, TM, K)
        _mm_row_block(lhsT_tiles, b, out, m * TM, TM, K, N)
    if m_rest:
        lhsT_tiles = _transposed_row_block(a, m_full * TM, m_rest, K)
        _mm_row_block(lhsT_tiles, b, out, m_full * TM, m_rest, K, N)
    return out
