"""What every instruction does on the way in and out: operand checks, masks, results.

`tile` checks one on-chip operand (R1 HBM, R4 memory space, R6 partitions, R10 partition
dim first, R16 start partition) and records it in the instruction's trace record;
`result` makes the instruction's output tensor, cast to its dtype, pending assignment.
Reads return the values and which of them are undefined (computed from never-written memory,
`_tensor.Undefined`); each instruction maps that onto its result, so it follows the data.
"""
import numpy as np

from . import _choices as choices
from . import _dtypes as dt
from . import _sim
from ._errors import fail
from ._index import Mask
from ._tensor import (ON_CHIP, PSUM, SBUF, Pending, Tensor, View, allocate, as_view, describe,
                      full_view, operand_record)


def begin(engine, opcode):
    return _sim.active().begin(engine, opcode)


def mask_array(mask, shape, required=True):
    """The mask as a bool array of `shape` (None when there is no mask)."""
    if mask is None:
        return None
    if not isinstance(mask, Mask):
        fail("R19", "mask= takes comparisons of loop indices and nl.arange patterns joined "
             "with &, got %s" % type(mask).__name__)
    try:
        return np.broadcast_to(mask.values, tuple(shape))
    except ValueError:
        if required:
            fail("R19", "a mask of shape %s does not fit a tile of shape %s"
                 % (list(mask.values.shape), list(shape)))
        return None


def check_partition_start(view, opcode, role):
    size, start = view.shape[0], view.partition_start
    if size > 64:
        allowed = (0,)
    elif size > 32:
        allowed = (0, 64)
    else:
        allowed = (0, 32, 64, 96)
    if start not in allowed:
        fail("R16", "%s: %s spans %d partitions starting at partition %d; a tile of that size "
             "must start at partition %s" % (opcode, role, size, start,
                                             " or ".join(str(a) for a in allowed)))


def tile(x, record, role, buffers=ON_CHIP):
    """The on-chip operand `x` as a View, checked and recorded."""
    view = as_view(x)
    opcode = record["op"]
    if view is None:
        fail("R11", "%s: %s must be a tile, got %s" % (opcode, role, type(x).__name__))
    buffer = view.tensor.buffer
    if buffer.is_hbm:
        fail("R1", "%s: %s is %s; compute instructions read SBUF or PSUM only (nl.load it first)"
             % (opcode, role, describe(view.tensor)))
    if buffer not in buffers:
        fail("R4", "%s: %s cannot be in %s (allowed: %s)"
             % (opcode, role, buffer.name, ", ".join(b.name for b in buffers)))
    if not view.shape or view.partition_axis != 0:
        fail("R10", "%s: %s must be a tile whose first dimension is the partition dimension "
             "(index the partition dimension with a slice, and block dimensions with ints)"
             % (opcode, role))
    if view.shape[0] > 128:
        fail("R6", "%s: size of partition dimension %d of %s exceeds architecture limitation "
             "of 128" % (opcode, view.shape[0], role))
    if choices.CHECK_PARTITION_START:
        check_partition_start(view, opcode, role)
    entry = operand_record(view)
    entry["role"] = role
    record["in"].append(entry)
    if "n" not in record:
        record["n"] = free_size(view.shape)
    return view


def free_size(shape):
    return int(np.prod(shape[1:])) if len(shape) > 1 else 1


def values(view, valid=None):
    """(the view's values as float32, Undefined or None); masked-out elements are 0 and are
    not read."""
    raw, undefined = view.read(valid)
    if _sim.current.dry:  # zeros: no copy, no mask
        return np.broadcast_to(np.float32(0), raw.shape), None
    raw = raw.astype(np.float32)
    if valid is not None:
        raw = np.where(valid, raw, np.float32(0))
    return raw, undefined


def row_mask(valid, partitions):
    """The partitions a mask of a [P, ...] tile touches, as a (P, 1) mask (None: all)."""
    if valid is None:
        return None
    return valid.reshape(partitions, -1).any(axis=1).reshape(partitions, 1)


def not_both_psum(record, a, b, names):
    if a.tensor.buffer is PSUM and b.tensor.buffer is PSUM:
        fail("R4", "%s: %s and %s cannot both be in PSUM" % ((record["op"],) + names))


def output_dtype(dtype, default, record):
    if dtype is None:
        return default
    nki_dtype = dt.normalize(dtype)
    if nki_dtype is None:
        fail("R26", "%s: dtype=%r is not an NKI dtype" % (record["op"], dtype))
    return nki_dtype


def result(record, computed, shape, dtype, explicit_dtype=False, buffer=SBUF, allowed=ON_CHIP,
           valid=None, matmul=False, undefined=None):
    """The instruction's output tile: `computed` (float32 or int) cast to `dtype`, written
    where `valid`, holding no defined value where `undefined`."""
    tensor = allocate(tuple(shape), dtype, buffer, explicit=False)
    if _sim.current.dry:
        computed = stored = np.broadcast_to(np.zeros((), dtype=dt.storage(dtype)), tensor.shape)
    else:
        computed = np.asarray(computed).reshape(tensor.shape)
        stored = dt.cast(computed, dtype)
    if valid is not None:
        valid = np.broadcast_to(valid, tensor.shape)
    full_view(tensor).write(stored, valid, undefined)
    # Assigned into a declared tile, the instruction writes that tile's dtype instead; an
    # explicit dtype= still rounds first.
    pending_values = stored if explicit_dtype or not dt.is_float(dtype) else computed
    tensor.pending = Pending(record, allowed, pending_values, valid, matmul, undefined)
    record["out"] = operand_record(full_view(tensor))
    return tensor


def scalar_operand(x, record, role, partitions, valid=None):
    """A Python number, or a [P, 1] tile's values as a (P, 1) float32 array: (values,
    Undefined or None, the tile's View or None). `valid` is the instruction's mask over its
    data tile: a masked instruction reads only the partitions it touches (NKI API Masking)."""
    if isinstance(x, (int, float, np.number)) and not isinstance(x, bool):
        return np.float32(x), None, None
    if isinstance(x, (Tensor, View)):
        view = tile(x, record, role)
        if tuple(view.shape) != (partitions, 1):
            fail("R11", "%s: %s must be a float or a [%d, 1] tile (one value per partition), "
                 "got shape %s" % (record["op"], role, partitions, list(view.shape)))
        column, undefined = values(view, row_mask(valid, partitions))
        return column, undefined, view
    fail("R11", "%s: %s must be a float or a [P, 1] tile, got %s"
         % (record["op"], role, type(x).__name__))
