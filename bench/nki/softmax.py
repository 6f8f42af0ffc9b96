"""Row softmax `exp(x - max) / sum(exp(x - max))` over the last axis, in NKI Beta 1.

No Beta 1 tutorial page covers softmax. The `nki.language` form uses the operations that the
nki-samples softmax tutorial kernel is listed with (max with keepdims, subtract, exp, sum,
normalize); the `nki.isa` form uses the instructions the Beta 1 ISA reference describes for each
step (aws-neuron-sdk `general/nki/api/nki/isa/__init__.py`, cca37847). The code is our own.

Rows of `x[M, N]` on partitions; full 128-row tiles in an `nl.affine_range`, the partial last
tile peeled into statically sized code (no masks). A row must fit in one partition.

- `softmax`: `nki.language` operations (max with keepdims, subtract, exp, sum, reciprocal,
  multiply).
- `softmax_isa`: three instructions over the row and one on a column: the negated row max from
  `tensor_reduce(negate=True)`, exp(x - max) and its row sum from one Scalar-engine
  `activation_reduce` (the max enters as the `bias` column), the reciprocal of the sums on the
  Vector engine, and a `tensor_scalar` multiply.
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


def _softmax_rows_nl(x, out, r0, rows):
    N = x.shape[1]
    x_tile = nl.load(x[r0:r0 + rows, 0:N])
    row_max = nl.max(x_tile, axis=[1], keepdims=True)
    shifted = nl.subtract(x_tile, row_max)
    e = nl.exp(shifted, dtype=nl.float32)
    row_sum = nl.sum(e, axis=[1], keepdims=True)
    inv_sum = nl.reciprocal(row_sum)
    y = nl.multiply(e, inv_sum, dtype=out.dtype)
    nl.store(out[r0:r0 + rows, 0:N], value=y)


def _softmax_rows_isa(x, out, r0, rows):
    N = x.shape[1]
    x_tile = nl.load(x[r0:r0 + rows, 0:N])
    neg_max = nisa.tensor_reduce(nl.maximum, x_tile, axis=[1], negate=True, keepdims=True, dtype=nl.float32)
    row_sum = nl.ndarray((rows, 1), dtype=nl.float32, buffer=nl.sbuf)
    e = nisa.activation_reduce(op=nl.exp, data=x_tile, reduce_op=nl.add, reduce_res=row_sum, bias=neg_max,
                               dtype=nl.float32)
    inv_sum = nisa.reciprocal(row_sum)
    y = nisa.tensor_scalar(e, nl.multiply, inv_sum, dtype=out.dtype)
    nl.store(out[r0:r0 + rows, 0:N], value=y)


def _over_row_tiles(x, rows_fn):
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    for t in nl.affine_range(M // P):
        rows_fn(x, out, t * P, P)
    if M % P:
        rows_fn(x, out, M - M % P, M % P)
    return out


@nki.jit
def softmax(x):
    """Row softmax with nki.language operations."""
    return _over_row_tiles(x, _softmax_rows_nl)


@nki.jit
def softmax_isa(x):
    """Row softmax with nki.isa instructions (reduce max, exp with free row sum, reciprocal, scale)."""
    return _over_row_tiles(x, _softmax_rows_isa)
