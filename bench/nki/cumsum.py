"""Inclusive prefix sum along the last axis, `np.cumsum(x, axis=-1)`, in NKI Beta 1.

Follows the description of the nki-samples contributed cumsum kernel (aws-neuron/nki-samples
`contributed/neuron-team-kernels/cumsum.py`, 0898a77: free-axis tiles of 2048 scanned with
`tensor_tensor_scan(ones, x, initial, multiply, add)` in an `nl.sequential_range`, the carry being
the last column of the previous tile) and the `nki.isa.tensor_tensor_scan` and
`nki.language.sequential_range` reference text (aws-neuron-sdk `general/nki/api/`, cca37847);
the code is our own.

Per row, `tensor_tensor_scan` computes r[i] = ones[i] * r[i-1] + x[i] with r[-1] = initial, a
running sum. Rows of `x[M, N]` on partitions (full 128-row tiles in an `nl.affine_range`, the
partial last row tile peeled); the free axis in tiles of F = min(N, 2048), full tiles in an
`nl.sequential_range` because each tile's scan starts from the previous tile's last column, the
partial last F tile peeled. The scan runs in f32 (the carry column is f32).
"""

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

F_TILE = 2048


def _as_output(run, out):
    """The f32 scan tile, cast to the output's dtype when that is not f32."""
    return run if out.dtype == nl.float32 else nl.copy(run, dtype=out.dtype)


def _scan_rows(x, out, ones, r0, rows):
    """Cumulative sums of rows r0:r0+rows, tile by tile along the free axis."""
    N = x.shape[1]
    F = min(N, F_TILE)
    f_full, f_rest = N // F, N % F
    carry = nl.zeros((rows, 1), dtype=nl.float32, buffer=nl.sbuf)

    for j in nl.sequential_range(f_full):
        x_tile = nl.load(x[r0:r0 + rows, j * F:(j + 1) * F])
        run = nisa.tensor_tensor_scan(ones[0:rows, 0:F], x_tile, carry, nl.multiply, nl.add, dtype=nl.float32)
        nl.store(out[r0:r0 + rows, j * F:(j + 1) * F], value=_as_output(run, out))
        carry[:, :] = nl.copy(run[:, F - 1:F])
    if f_rest:
        x_tile = nl.load(x[r0:r0 + rows, f_full * F:N])
        run = nisa.tensor_tensor_scan(ones[0:rows, 0:f_rest], x_tile, carry, nl.multiply, nl.add,
                                      dtype=nl.float32)
        nl.store(out[r0:r0 + rows, f_full * F:N], value=_as_output(run, out))


@nki.jit
def cumsum(x):
    """Row-wise inclusive prefix sum of x[M, N]."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    ones = nl.ones((P, min(N, F_TILE)), dtype=nl.float32, buffer=nl.sbuf)

    for t in nl.affine_range(M // P):
        _scan_rows(x, out, ones, t * P, P)
    if M % P:
        _scan_rows(x, out, ones, M - M % P, M % P)
    return out
