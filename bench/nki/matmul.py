"""Matrix multiplication kernels in NKI Beta 1, written after the NKI matmul tutorial.

Follows the descriptions in aws-neuron-sdk `general/nki/tutorials/matrix_multiplication.rst`
(commit cca37847); the code is our own. Every kernel computes `lhsT.T @ rhs` from
`lhsT[K, M]` and `rhs[K, N]`: the contraction dimension K sits on the partitions of both
operands, which is the layout the Tensor engine reads (stationary = lhsT tile, moving = rhs
tile, result `stationary.T @ moving` in PSUM).

The tutorial's steps, one kernel each:

- `matmul_basic`: one tile, K <= 128, M <= 128, N <= 512; `nl.matmul(transpose_x=True)`,
  PSUM result copied to SBUF with `nl.copy`, then stored.
- `matmul_tiled`: M in tiles of 128, N in tiles of 512, K in tiles of 128 accumulated into one
  PSUM tile (`nl.zeros(..., buffer=nl.psum)` + `+=` of `nisa.nc_matmul` inside an
  `nl.affine_range`, the pattern the tutorial names as the way to get PSUM accumulation).
  Indices through `nl.mgrid`, as in the tutorial.
- `matmul_hoist_load`: the lhsT tiles of one M tile are loaded once, before the N loop, into a
  block tensor `(K/128, par_dim(128), 128)`; the rhs tiles of one N tile once per (m, n).
- `matmul_block_free`: blocks of several M tiles and several N tiles kept in SBUF block tensors
  `(tiles, K/128, par_dim(128), tile)`, so each loaded tile is reused across a whole block.
- `matmul_fully_optimized` (the tutorial's "Optimization 3"): K blocked as well, the K-block
  loop an `nl.sequential_range` (hand-ordered for locality), the partial sums of each K block
  added into f32 SBUF accumulators for a whole N block of the output; operand blocks loaded as
  wide contiguous rows (`(tiles, par_dim(128), block)` tensors, one DMA per 128-row slab), and
  each output row stored as one `[128, BLOCK_N]` transfer.

Sizes: M and K multiples of 128 and N a multiple of 512 for the tiled kernels (the tutorial's
stated restriction); `matmul_block_free` also needs M a multiple of 128 * TILES_IN_BLOCK_M and N
a multiple of 512 * TILES_IN_BLOCK_N, and `matmul_fully_optimized` M, N and K multiples of
128 * OPT_TILES_IN_BLOCK_M, 512 * OPT_TILES_IN_BLOCK_N and 128 * OPT_TILES_IN_BLOCK_K (the
tutorial's own configuration is 16, 2 and 8 tiles; ours is smaller so that tests stay small). `transpose_matmul` (general sizes) and `matmul`
(un-transposed left operand) are in `transpose_matmul.py`.
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

TILES_IN_BLOCK_M = 2
TILES_IN_BLOCK_N = 2

OPT_TILES_IN_BLOCK_M = 2
OPT_TILES_IN_BLOCK_N = 2
OPT_TILES_IN_BLOCK_K = 2


def _check_tiled(lhsT, rhs, block_m=1, block_n=1, block_k=1):
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    assert K == K_rhs, "lhsT and rhs must share the contraction dimension"
    tile_k = nl.tile_size.pmax
    tile_m = nl.tile_size.gemm_stationary_fmax
    tile_n = nl.tile_size.gemm_moving_fmax
    assert K % (tile_k * block_k) == 0, f"K = {K} must be a multiple of {tile_k * block_k}"
    assert M % (tile_m * block_m) == 0, f"M = {M} must be a multiple of {tile_m * block_m}"
    assert N % (tile_n * block_n) == 0, f"N = {N} must be a multiple of {tile_n * block_n}"
    return K, M, N, tile_k, tile_m, tile_n


@nki.jit
def matmul_basic(lhsT, rhs):
    """One-tile `lhsT.T @ rhs`: K <= 128, M <= 128, N <= 512."""
    K, M = lhsT.shape
    K_rhs, N = rhs.shape
    assert K == K_rhs and K <= nl.tile_size.pmax
    assert M <= nl.tile_size.gemm_stationary_fmax and N <= nl.tile_size.gemm_moving_fmax
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

    # The contraction axis is the partition axis of both operands (lhs is loaded transposed).
    i_k = nl.arange(K)[:, None]
    i_m = nl.arange(M)[None, :]
    i_n = nl.arange(N)[None, :]
    lhsT_tile = nl.load(lhsT[i_k, i_m])
    rhs_tile = nl.load(rhs[i_k, i_n])

    # nl.matmul writes PSUM; nl.store reads SBUF, hence the copy.
    result_psum = nl.matmul(lhsT_tile, rhs_tile, transpose_x=True)
    result_sbuf = nl.copy(result_psum, dtype=result.dtype)

    i_out_m = nl.arange(M)[:, None]
    nl.store(result[i_out_m, i_n], value=result_sbuf)
    return result


@nki.jit
def matmul_tiled(lhsT, rhs):
    """Tiled `lhsT.T @ rhs`, K accumulated in PSUM; both operand tiles loaded in the K loop."""
    K, M, N, TILE_K, TILE_M, TILE_N = _check_tiled(lhsT, rhs)
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

    i_lhsT = nl.mgrid[0:TILE_K, 0:TILE_M]
    i_rhs = nl.mgrid[0:TILE_K, 0:TILE_N]
    i_res = nl.mgrid[0:TILE_M, 0:TILE_N]

    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.load(lhsT[k * TILE_K + i_lhsT.p, m * TILE_M + i_lhsT.x])
                rhs_tile = nl.load(rhs[k * TILE_K + i_rhs.p, n * TILE_N + i_rhs.x])
                acc += nisa.nc_matmul(lhsT_tile, rhs_tile)

            res_tile = nl.copy(acc, dtype=result.dtype)
            nl.store(result[m * TILE_M + i_res.p, n * TILE_N + i_res.x], value=res_tile)
    return result


@nki.jit
def matmul_hoist_load(lhsT, rhs):
    """Tiled `lhsT.T @ rhs` with each lhsT tile loaded once per M tile, outside the N loop."""
    K, M, N, TILE_K, TILE_M, TILE_N = _check_tiled(lhsT, rhs)
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    n_k = K // TILE_K

    for m in nl.affine_range(M // TILE_M):
        # All K tiles of this M column block, reused by every N tile.
        lhsT_tiles = nl.ndarray((n_k, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(n_k):
            lhsT_tiles[k] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])

        for n in nl.affine_range(N // TILE_N):
            rhs_tiles = nl.ndarray((n_k, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(n_k):
                rhs_tiles[k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])

            acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(n_k):
                acc += nisa.nc_matmul(lhsT_tiles[k], rhs_tiles[k])

            res_tile = nisa.tensor_copy(acc, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=res_tile)
    return result


@nki.jit
def matmul_block_free(lhsT, rhs):
    """Tiled `lhsT.T @ rhs` with blocks of TILES_IN_BLOCK_M x TILES_IN_BLOCK_N output tiles.

    A block's operand tiles stay in SBUF while all its output tiles are computed, so each
    lhsT tile is loaded once per N block and each rhs tile once per M block.
    """
    K, M, N, TILE_K, TILE_M, TILE_N = _check_tiled(lhsT, rhs, TILES_IN_BLOCK_M, TILES_IN_BLOCK_N)
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    n_k = K // TILE_K
    BLOCK_M = TILE_M * TILES_IN_BLOCK_M
    BLOCK_N = TILE_N * TILES_IN_BLOCK_N

    for m in nl.affine_range(M // BLOCK_M):
        lhsT_tiles = nl.ndarray((TILES_IN_BLOCK_M, n_k, nl.par_dim(TILE_K), TILE_M),
                                dtype=lhsT.dtype, buffer=nl.sbuf)
        for bm in nl.affine_range(TILES_IN_BLOCK_M):
            m0 = m * BLOCK_M + bm * TILE_M
            for k in nl.affine_range(n_k):
                nisa.dma_copy(dst=lhsT_tiles[bm, k], src=lhsT[k * TILE_K:(k + 1) * TILE_K, m0:m0 + TILE_M])

        for n in nl.affine_range(N // BLOCK_N):
            rhs_tiles = nl.ndarray((TILES_IN_BLOCK_N, n_k, nl.par_dim(TILE_K), TILE_N),
                                   dtype=rhs.dtype, buffer=nl.sbuf)
            for bn in nl.affine_range(TILES_IN_BLOCK_N):
                n0 = n * BLOCK_N + bn * TILE_N
                for k in nl.affine_range(n_k):
                    rhs_tiles[bn, k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n0:n0 + TILE_N])

            for bm in nl.affine_range(TILES_IN_BLOCK_M):
                for bn in nl.affine_range(TILES_IN_BLOCK_N):
                    acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(n_k):
                        acc += nisa.nc_matmul(lhsT_tiles[bm, k], rhs_tiles[bn, k])

                    res_tile = nl.copy(acc, dtype=result.dtype)
                    m0 = m * BLOCK_M + bm * TILE_M
                    n0 = n * BLOCK_N + bn * TILE_N
                    nl.store(result[m0:m0 + TILE_M, n0:n0 + TILE_N], value=res_tile)
    return result


@nki.jit
def matmul_fully_optimized(lhsT, rhs):
    """`lhsT.T @ rhs` blocked in M, N and K; partial sums over K blocks accumulated in SBUF."""
    K, M, N, TILE_K, TILE_M, TILE_N = _check_tiled(lhsT, rhs, OPT_TILES_IN_BLOCK_M, OPT_TILES_IN_BLOCK_N,
                                                   OPT_TILES_IN_BLOCK_K)
    TBM, TBN, TBK = OPT_TILES_IN_BLOCK_M, OPT_TILES_IN_BLOCK_N, OPT_TILES_IN_BLOCK_K
    BLOCK_M, BLOCK_N, BLOCK_K = TILE_M * TBM, TILE_N * TBN, TILE_K * TBK
    NUM_BLOCK_M, NUM_BLOCK_N, NUM_BLOCK_K = M // BLOCK_M, N // BLOCK_N, K // BLOCK_K
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)

    for n in nl.affine_range(NUM_BLOCK_N):
        # f32 partial sums of output columns n*BLOCK_N:(n+1)*BLOCK_N, all rows, one PSUM-tile-sized
        # slot per (M block, M tile, N tile).
        sums = nl.zeros((NUM_BLOCK_M, TBM, TBN, nl.par_dim(TILE_M), TILE_N), dtype=nl.float32, buffer=nl.sbuf)

        for k in nl.sequential_range(NUM_BLOCK_K):
            # One contiguous [128, BLOCK_N] slab of rhs per K tile of this K block.
            rhs_tiles = nl.ndarray((TBK, nl.par_dim(TILE_K), BLOCK_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for bk in nl.affine_range(TBK):
                k0 = k * BLOCK_K + bk * TILE_K
                rhs_tiles[bk] = nl.load(rhs[k0:k0 + TILE_K, n * BLOCK_N:(n + 1) * BLOCK_N])

            for m in nl.affine_range(NUM_BLOCK_M):
                lhsT_tiles = nl.ndarray((TBK, nl.par_dim(TILE_K), BLOCK_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                for bk in nl.affine_range(TBK):
                    k0 = k * BLOCK_K + bk * TILE_K
                    lhsT_tiles[bk] = nl.load(lhsT[k0:k0 + TILE_K, m * BLOCK_M:(m + 1) * BLOCK_M])

                for bn in nl.affine_range(TBN):
                    for bm in nl.affine_range(TBM):
                        acc = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(TBK):
                            acc += nisa.nc_matmul(lhsT_tiles[bk, :, bm * TILE_M:(bm + 1) * TILE_M],
                                                  rhs_tiles[bk, :, bn * TILE_N:(bn + 1) * TILE_N])
                        sums[m, bm, bn] = nisa.tensor_tensor(sums[m, bm, bn], acc, nl.add)

        for m in nl.affine_range(NUM_BLOCK_M):
            for bm in nl.affine_range(TBM):
                row = nl.ndarray((TILE_M, BLOCK_N), dtype=result.dtype, buffer=nl.sbuf)
                for bn in nl.affine_range(TBN):
                    row[:, bn * TILE_N:(bn + 1) * TILE_N] = nl.copy(sums[m, bm, bn], dtype=result.dtype)
                m0 = m * BLOCK_M + bm * TILE_M
                nl.store(result[m0:m0 + TILE_M, n * BLOCK_N:(n + 1) * BLOCK_N], value=row)
    return result
