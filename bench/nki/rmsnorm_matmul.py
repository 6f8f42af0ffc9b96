"""RMSNorm followed by a projection, `(x / sqrt(mean(x^2) + eps) * g) @ w`, in NKI Beta 1.

The sequential hand-written plan (the structure the nki-samples `allocated_fused_rms_norm_qkv`
kernel is described with, aws-neuron/nki-samples 0898a77, without its direct allocation), built
from the RMSNorm tutorial's row-tile normalization (aws-neuron-sdk
`general/nki/tutorials/rmsnorm.rst`, cca37847) and the matmul tutorial's tiling; the code is our
own. Per 128-row tile of `x[M, K]`:

1. load the rows contiguously; sum of squares as the free reduction of a Scalar-engine
   `activation(square)`; 1/rms from one `activation(rsqrt, scale=1/K, bias=eps column)`;
2. normalize (`tensor_scalar` by 1/rms, `tensor_tensor` by g broadcast along partitions);
3. transpose the normalized tile in 128-column pieces on the Tensor engine (`nc_transpose`,
   PSUM -> SBUF copy), which puts K on partitions for the stationary operand;
4. for each 512-column tile of `w[K, N]`, accumulate the K tiles' `nc_matmul` in one PSUM tile,
   copy to SBUF, store.

The Tensor engine waits for each tile's normalization; Axon's commuted plan (scale after the
matmul) is what this baseline is for. Any M, N, K: partial tiles are peeled into statically
sized code. A row of x must fit in one partition.
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

EPS = 1e-6


def _normalized_transposed(x, g_tile, eps_col, m0, tm):
    """Tiles of (rmsnorm(x[m0:m0+tm]) * g).T as (K tiles, par_dim(128), 128), K on partitions."""
    K = x.shape[1]
    TK = nl.tile_size.pmax
    k_full, k_rest = K // TK, K % TK
    rows = nl.load(x[m0:m0 + tm, 0:K])
    sum_sq = nl.ndarray((tm, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation_reduce(op=nl.square, data=rows, reduce_op=nl.add, reduce_res=sum_sq, dtype=nl.float32)
    inv_rms = nisa.activation(op=nl.rsqrt, data=sum_sq, scale=1.0 / K, bias=eps_col[0:tm, :])
    xn = nisa.tensor_scalar(rows, nl.multiply, inv_rms, dtype=nl.float32)
    xn = nisa.tensor_tensor(xn, g_tile[0:tm, :], nl.multiply, dtype=x.dtype)

    tiles = nl.ndarray((k_full + (1 if k_rest else 0), nl.par_dim(TK), nl.tile_size.gemm_stationary_fmax),
                       dtype=x.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(k_full):
        piece_t = nisa.nc_transpose(xn[:, k * TK:(k + 1) * TK], engine=nisa.tensor_engine)
        tiles[k, :, 0:tm] = nisa.tensor_copy(piece_t, dtype=x.dtype)
    if k_rest:
        piece_t = nisa.nc_transpose(xn[:, k_full * TK:K], engine=nisa.tensor_engine)
        tiles[k_full, 0:k_rest, 0:tm] = nisa.tensor_copy(piece_t, dtype=x.dtype)
    return tiles


def _project(xnT_tiles, w, out, m0, tm, n0, tn):
    """out[m0:m0+tm, n0:n0+tn] = xn[m0:m0+tm] @ w[:, n0:n0+tn], K accumulated in PSUM."""
    K = w.shape[0]
    TK = nl.tile_size.pmax
    k_full, k_rest = K // TK, K % TK
    acc = nl.zeros((tm, tn), nl.float32, buffer=nl.psum)
    for k in nl.affine_range(k_full):
        w_tile = nl.load(w[k * TK:(k + 1) * TK, n0:n0 + tn])
        acc += nisa.nc_matmul(xnT_tiles[k, :, 0:tm], w_tile)
    if k_rest:
        w_tile = nl.load(w[k_full * TK:K, n0:n0 + tn])
        acc += nisa.nc_matmul(xnT_tiles[k_full, 0:k_rest, 0:tm], w_tile)
    nl.store(out[m0:m0 + tm, n0:n0 + tn], value=nl.copy(acc, dtype=out.dtype))


def _row_tile(x, w, out, g_tile, eps_col, m0, tm):
    N = w.shape[1]
    TN = nl.tile_size.gemm_moving_fmax
    xnT_tiles = _normalized_transposed(x, g_tile, eps_col, m0, tm)
    for n in nl.affine_range(N // TN):
        _project(xnT_tiles, w, out, m0, tm, n * TN, TN)
    if N % TN:
        _project(xnT_tiles, w, out, m0, tm, N - N % TN, N % TN)


@nki.jit
def rmsnorm_matmul(x, w, g):
    """(rmsnorm(x[M, K]) * g[K]) @ w[K, N], normalize-then-multiply per 128-row tile."""
    M, K = x.shape
    K_w, N = w.shape
    assert K == K_w and tuple(g.shape) == (K,)
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    g_tile = nl.broadcast_to(nl.load(g.reshape((1, K))), shape=(P, K))
    eps_col = nisa.memset((P, 1), EPS, nl.float32)

    for t in nl.affine_range(M // P):
        _row_tile(x, w, out, g_tile, eps_col, t * P, P)
    if M % P:
        _row_tile(x, w, out, g_tile, eps_col, M - M % P, M % P)
    return out
