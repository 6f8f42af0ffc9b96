"""The two LayerNorm versions of the NKI LayerNorm tutorial, for the timing model's validation.

`(x - mean) * rsqrt(var + eps) * gamma + beta` over the rows of x[M, N], after the versions the
tutorial describes (aws-neuron-sdk general/nki/tutorials/layernorm.rst, SDK 2.26 docs); the
code is ours. The tutorial reports 2311 us (v1) and 1969 us (v2) on trn1; research note nki.md
4.5 explains why that must be at the kernel file's default size, 4096 x 8192 f32.

- `ln_v1`: nki.language operations only: the mean with nl.mean, the centred rows, their
  variance with nl.mean of the square, rsqrt, then scale, gamma and beta one op each.
- `ln_v2`: mean and variance by nisa.bn_stats over 512-wide chunks and one nisa.bn_aggr; the
  shift and scale as one nisa.tensor_scalar with two operators; gamma and beta as before.

Rows go 128 to a tile; M is a multiple of 128 here (the tutorial masks a partial last tile).
gamma and beta are loaded once and broadcast over the partitions.
"""
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

EPS = 1e-5
P = 128


def _rows(v, n):
    return nl.broadcast_to(nl.load(v.reshape((1, n))), shape=(P, n))


@nki.jit
def ln_v1(x, gamma, beta):
    M, N = x.shape
    assert M % P == 0
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    g = _rows(gamma, N)
    b = _rows(beta, N)
    for t in nl.affine_range(M // P):
        xt = nl.load(x[t * P:(t + 1) * P, :])
        mu = nl.mean(xt, axis=1, keepdims=True)
        xc = nl.subtract(xt, mu)
        var = nl.mean(nl.square(xc), axis=1, keepdims=True)
        rstd = nl.rsqrt(nl.add(var, EPS))
        y = nl.multiply(xc, rstd)
        y = nl.multiply(y, g)
        y = nl.add(y, b)
        nl.store(out[t * P:(t + 1) * P, :], value=y)
    return out


@nki.jit
def ln_v2(x, gamma, beta):
    M, N = x.shape
    F = nl.tile_size.bn_stats_fmax
    assert M % P == 0 and N % F == 0
    chunks = N // F
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    g = _rows(gamma, N)
    b = _rows(beta, N)
    for t in nl.affine_range(M // P):
        xt = nl.load(x[t * P:(t + 1) * P, :])
        stats = nl.ndarray((P, 6 * chunks), dtype=nl.float32, buffer=nl.sbuf)
        for c in nl.affine_range(chunks):
            stats[:, c * 6:(c + 1) * 6] = nisa.bn_stats(xt[:, c * F:(c + 1) * F], dtype=nl.float32)
        moments = nisa.bn_aggr(stats)  # [P, 2]: mean, variance
        rstd = nl.rsqrt(nl.add(moments[:, 1:2], EPS))
        y = nisa.tensor_scalar(xt, op0=nl.subtract, operand0=moments[:, 0:1],
                               op1=nl.multiply, operand1=rstd)
        y = nisa.tensor_tensor(y, g, nl.multiply)
        y = nisa.tensor_tensor(y, b, nl.add)
        nl.store(out[t * P:(t + 1) * P, :], value=y)
    return out
