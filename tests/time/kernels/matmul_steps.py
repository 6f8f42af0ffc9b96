"""The four steps of the NKI matmul tutorial, written for the timing model's validation.

Each computes `lhsT.T @ rhs` (lhsT[K, M], rhs[K, N], K on the partitions of both operands)
following the steps the tutorial describes (aws-neuron-sdk general/nki/tutorials/
matrix_multiplication.rst, SDK 2.26 docs); the code is ours. The tutorial times them at
[4096, 8192] @ [8192, 8192] in bf16 on trn1: 51.80, 42.96, 22.07 and 6.97 ms.

- `mm_tiled`: output tiles of 128 x 512, K in tiles of 128 accumulated in one PSUM tile; both
  operand tiles loaded inside the innermost loop.
- `mm_hoisted`: the lhsT tiles of one row of output tiles loaded once, before the N loop; the
  rhs tiles of one output tile once per output tile (loads out of the innermost loop).
- `mm_blocked_free`: blocks of 2 M tiles and 2 N tiles: the lhsT column block is loaded once
  per M block, the rhs block once per (M block, N block), and every loaded tile feeds 2 outputs.
- `mm_blocked_all`: M, N and K blocked (16, 2 and 8 tiles: 2048 x 1024 x 1024), the K-block loop
  sequential; partial sums of each K block added into SBUF result tiles kept for a whole N
  block (in the output dtype, which is what the tutorial's 4 MB per M block implies); operand
  blocks loaded as wide rows (4 KiB and 2 KiB per partition in bf16).
"""
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

TP = 128  # partitions: contraction tile, and stationary free size
TN = 512  # moving free size (one PSUM bank of fp32)


def _sizes(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2 and K % TP == 0 and M % TP == 0 and N % TN == 0
    return K, M, N


@nki.jit
def mm_tiled(lhsT, rhs):
    K, M, N = _sizes(lhsT, rhs)
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TP):
        for n in nl.affine_range(N // TN):
            acc = nl.zeros((TP, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TP):
                a = nl.load(lhsT[k * TP:(k + 1) * TP, m * TP:(m + 1) * TP])
                b = nl.load(rhs[k * TP:(k + 1) * TP, n * TN:(n + 1) * TN])
                acc += nisa.nc_matmul(a, b)
            c = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TP:(m + 1) * TP, n * TN:(n + 1) * TN], value=c)
    return out


@nki.jit
def mm_hoisted(lhsT, rhs):
    K, M, N = _sizes(lhsT, rhs)
    KT = K // TP
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TP):
        a = nl.ndarray((KT, nl.par_dim(TP), TP), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(KT):
            a[k] = nl.load(lhsT[k * TP:(k + 1) * TP, m * TP:(m + 1) * TP])
        for n in nl.affine_range(N // TN):
            b = nl.ndarray((KT, nl.par_dim(TP), TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(KT):
                b[k] = nl.load(rhs[k * TP:(k + 1) * TP, n * TN:(n + 1) * TN])
            acc = nl.zeros((TP, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(KT):
                acc += nisa.nc_matmul(a[k], b[k])
            c = nl.copy(acc, dtype=out.dtype)
            nl.store(out[m * TP:(m + 1) * TP, n * TN:(n + 1) * TN], value=c)
    return out


@nki.jit
def mm_blocked_free(lhsT, rhs, bm=2, bn=2):
    K, M, N = _sizes(lhsT, rhs)
    KT = K // TP
    assert M % (bm * TP) == 0 and N % (bn * TN) == 0
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for mb in nl.affine_range(M // (bm * TP)):
        a = nl.ndarray((bm, KT, nl.par_dim(TP), TP), dtype=lhsT.dtype, buffer=nl.sbuf)
        for i in nl.affine_range(bm):
            col = (mb * bm + i) * TP
            for k in nl.affine_range(KT):
                a[i, k] = nl.load(lhsT[k * TP:(k + 1) * TP, col:col + TP])
        for nb in nl.affine_range(N // (bn * TN)):
            b = nl.ndarray((bn, KT, nl.par_dim(TP), TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for j in nl.affine_range(bn):
                col = (nb * bn + j) * TN
                for k in nl.affine_range(KT):
                    b[j, k] = nl.load(rhs[k * TP:(k + 1) * TP, col:col + TN])
            for i in nl.affine_range(bm):
                for j in nl.affine_range(bn):
                    acc = nl.zeros((TP, TN), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(KT):
                        acc += nisa.nc_matmul(a[i, k], b[j, k])
                    c = nl.copy(acc, dtype=out.dtype)
                    row, col = (mb * bm + i) * TP, (nb * bn + j) * TN
                    nl.store(out[row:row + TP, col:col + TN], value=c)
    return out


@nki.jit
def mm_blocked_all(lhsT, rhs, bm=16, bn=2, bk=8):
    K, M, N = _sizes(lhsT, rhs)
    BM, BN, BK = bm * TP, bn * TN, bk * TP
    assert M % BM == 0 and N % BN == 0 and K % BK == 0
    NM = M // BM
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for nb in nl.affine_range(N // BN):
        res = nl.zeros((NM, bm, nl.par_dim(TP), BN), dtype=out.dtype, buffer=nl.sbuf)
        for kb in nl.sequential_range(K // BK):
            b = nl.ndarray((bk, nl.par_dim(TP), BN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(bk):
                row = kb * BK + k * TP
                b[k] = nl.load(rhs[row:row + TP, nb * BN:(nb + 1) * BN])
            for mb in nl.affine_range(NM):
                a = nl.ndarray((bk, nl.par_dim(TP), BM), dtype=lhsT.dtype, buffer=nl.sbuf)
                for k in nl.affine_range(bk):
                    row = kb * BK + k * TP
                    a[k] = nl.load(lhsT[row:row + TP, mb * BM:(mb + 1) * BM])
                for i in nl.affine_range(bm):
                    for j in nl.affine_range(bn):
                        acc = nl.zeros((TP, TN), dtype=nl.float32, buffer=nl.psum)
                        for k in nl.affine_range(bk):
                            acc += nisa.nc_matmul(a[k, :, i * TP:(i + 1) * TP], b[k, :, j * TN:(j + 1) * TN])
                        part = res[mb, i, :, j * TN:(j + 1) * TN]
                        res[mb, i, :, j * TN:(j + 1) * TN] = nl.add(part, acc)
        for mb in nl.affine_range(NM):
            for i in nl.affine_range(bm):
                row = mb * BM + i * TP
                nl.store(out[row:row + TP, nb * BN:(nb + 1) * BN], value=res[mb, i])
    return out
