"""neuronxcc.nki.language: tensors, loops, indexing, data movement and nl-level math.

nl-level math lowers to one nki.isa instruction each (which one: _choices.py), so every
rule and every trace record comes from the isa layer.
"""
import builtins

import numpy as np

from . import _choices as choices
from . import _dtypes as dt
from . import _ops
from . import _sim
from . import isa as nisa
from ._errors import fail
from ._exec import begin, mask_array, output_dtype, result, tile, values
from ._index import DynSlice, IndexExpr, Mask, arange, ds, mgrid  # noqa: F401 (API)
from ._tensor import (ON_CHIP, PRIVATE_HBM, PSUM, SBUF, SHARED_HBM, ParDim, Tensor, View,
                      allocate, as_view, check_defined, describe, full_view, operand_record,
                      undefined_map, undefined_union)
from .isa import count_dma_bytes

# -- dtypes and memories ----------------------------------------------------------------
bfloat16, float16, float32, tfloat32 = dt.bfloat16, dt.float16, dt.float32, dt.tfloat32
float8_e4m3, float8_e5m2 = dt.float8_e4m3, dt.float8_e5m2
int8, int16, int32, uint8, uint16, uint32 = dt.int8, dt.int16, dt.int32, dt.uint8, dt.uint16, dt.uint32
bool_ = dt.bool_
sbuf, psum = SBUF, PSUM
hbm = private_hbm = PRIVATE_HBM
shared_hbm = SHARED_HBM


def par_dim(size):
    return ParDim(size)


class _TileSize:
    pmax = 128
    psum_fmax = 512
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512
    total_available_sbuf_size = choices.SBUF_BYTES_PER_PARTITION


tile_size = _TileSize()


# -- allocation ---------------------------------------------------------------------------
def ndarray(shape, dtype, *, buffer=None, name="", **kwargs):
    return allocate(shape, dtype, buffer or SBUF, name)


def _filled(shape, dtype, buffer, name, fill):
    buffer = buffer or SBUF
    if buffer.is_hbm:
        fail("R3", "HBM tensors cannot be created with an initial value; allocate with "
             "nl.ndarray and store into it")
    tensor = allocate(shape, dtype, buffer, name)
    record = begin(choices.DEFAULT_MEMSET_ENGINE, "memset")
    view = full_view(tensor)
    record["out"] = operand_record(view)
    # Elements per partition: every dimension but the partition dimension.
    record["n"] = int(np.prod(tensor.shape)) // (tensor.shape[tensor.partition_axis] or 1)
    view.write(dt.cast(np.float64(fill), tensor.dtype))
    return tensor


def zeros(shape, dtype, *, buffer=None, name="", **kwargs):
    return _filled(shape, dtype, buffer, name, 0)


def ones(shape, dtype, *, buffer=None, name="", **kwargs):
    return _filled(shape, dtype, buffer, name, 1)


def full(shape, fill_value, dtype, *, buffer=None, name="", **kwargs):
    return _filled(shape, dtype, buffer, name, fill_value)


def zeros_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return zeros(a.shape, dtype or a.dtype, buffer=buffer, name=name)


def empty_like(a, dtype=None, *, buffer=None, name="", **kwargs):
    return ndarray(a.shape, dtype or a.dtype, buffer=buffer, name=name)


# -- loops and the SPMD frame -------------------------------------------------------------
def affine_range(*args, **kwargs):
    return _sim.active().loop("affine", args, symbolic=True)


def sequential_range(*args, **kwargs):
    return _sim.active().loop("sequential", args, symbolic=True)


def static_range(*args, **kwargs):
    return _sim.active().loop("static", args, symbolic=False)


def program_id(axis):
    return 0


def num_programs(axes=None):
    return 1


def program_ndim():
    return 0


def device_print(prefix, x, *, mask=None, **kwargs):
    print(prefix, as_view(x).read()[0])


# -- data movement ------------------------------------------------------------------------
def _hbm_view(x, record, role, what):
    view = as_view(x)
    if view is None or not view.tensor.buffer.is_hbm:
        fail("R3", "%s: %s must be an HBM tensor, got %s" % (
            record["op"], role, describe(view.tensor) if view is not None else type(x).__name__))
    entry = operand_record(view)
    entry["role"] = role
    return view, entry


def load(src, *, mask=None, dtype=None, **kwargs):
    record = begin("dma", "load")
    view, entry = _hbm_view(src, record, "src", "load")
    record["in"].append(entry)
    if view.shape and view.shape[0] > 128:
        fail("R6", "load: size of partition dimension %d exceeds architecture limitation of 128 "
             "(the first index dimension becomes the partition dimension)" % view.shape[0])
    valid = mask_array(mask, view.shape)
    raw, undefined = view.read(valid)
    count_dma_bytes(record, view, None, raw.size if valid is None else int(valid.sum()))
    out_dtype = output_dtype(dtype, view.dtype, record)
    computed = raw if out_dtype == view.dtype else raw.astype(np.float32)
    return result(record, computed, view.shape, out_dtype, explicit_dtype=True, allowed=(SBUF,),
                  valid=valid, undefined=undefined)


def load_transpose2d(src, *, mask=None, dtype=None, **kwargs):
    record = begin("dma", "load_transpose2d")
    view, entry = _hbm_view(src, record, "src", "load_transpose2d")
    record["in"].append(entry)
    if len(view.shape) != 2:
        fail("R11", "load_transpose2d takes a 2-D HBM region, got %s" % list(view.shape))
    if view.shape[1] > 128:
        fail("R6", "load_transpose2d: size of partition dimension %d (the source's second "
             "dimension) exceeds architecture limitation of 128" % view.shape[1])
    valid = mask_array(mask, view.shape)
    raw, undefined = view.read(valid)
    count_dma_bytes(record, view, None, raw.size)
    out_dtype = output_dtype(dtype, view.dtype, record)
    computed = raw if out_dtype == view.dtype else raw.astype(np.float32)
    return result(record, computed.T, view.shape[::-1], out_dtype, explicit_dtype=True,
                  allowed=(SBUF,), valid=None if valid is None else valid.T,
                  undefined=undefined_map(undefined, lambda u: u.T))


def store(dst, value, *, mask=None, **kwargs):
    record = begin("dma", "store")
    dest, entry = _hbm_view(dst, record, "dst", "store")
    record["out"] = entry
    valid = mask_array(mask, dest.shape)
    if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
        dest.write(dt.cast(np.float64(value), dest.dtype), valid)
        return
    source = as_view(value)
    if source is None:
        fail("R11", "store: value must be a tile, got %s" % type(value).__name__)
    if source.tensor.buffer.is_hbm:
        fail("R3", "store: value must be an SBUF (or PSUM) tile, got %s" % describe(source.tensor))
    if source.tensor.buffer is PSUM:
        copy = _sim.active().begin(choices.PSUM_STORE_COPY_ENGINE, "tensor_copy")
        copy["in"].append(operand_record(source))
        copy["note"] = "PSUM tile copied to SBUF before nl.store"
    source_entry = operand_record(source)
    source_entry["role"] = "value"
    record["in"].append(source_entry)
    source_valid = valid
    if tuple(source.shape) != tuple(dest.shape):
        if int(np.prod(source.shape)) == int(np.prod(dest.shape)):
            source_valid = None if valid is None else valid.reshape(source.shape)
        else:
            try:
                np.broadcast_shapes(tuple(dest.shape), tuple(source.shape))
            except ValueError:
                fail("R11", "store: value of shape %s does not fit destination of shape %s"
                     % (list(source.shape), list(dest.shape)))
            source_valid = None
    raw, undefined = source.read(source_valid)
    if int(np.prod(source.shape)) == int(np.prod(dest.shape)):
        raw = raw.reshape(dest.shape)
        undefined = undefined_map(undefined, lambda u: u.reshape(dest.shape))
    elif np.broadcast_shapes(tuple(dest.shape), tuple(source.shape)) != tuple(dest.shape):
        fail("R11", "store: value of shape %s does not fit destination of shape %s"
             % (list(source.shape), list(dest.shape)))
    undefined = undefined_union(tuple(dest.shape), undefined)
    if undefined is not None and valid is not None:
        undefined = undefined_map(undefined, lambda u: u & valid)
    check_defined(undefined, "store", dest)
    if dest.dtype != source.dtype:
        raw = raw.astype(np.float32)
    dest.write(dt.cast(raw, dest.dtype), valid)
    count_dma_bytes(record, source, dest, np.broadcast_to(raw, dest.shape).size
                    if valid is None else int(valid.sum()))


def copy_into(dest, source):
    """`dest[...] = source` for an existing tile: one tensor_copy into dest."""
    dest._absorb(nisa.tensor_copy(source))


def copy(src, *, mask=None, dtype=None, **kwargs):
    return nisa.tensor_copy(src, mask=mask, dtype=dtype)


def broadcast_to(src, *, shape, **kwargs):
    view = as_view(src)
    shape = tuple(int(s) for s in shape)
    if view is not None and tuple(view.shape) == shape:
        return src
    record = begin(choices.BROADCAST_ENGINE, "broadcast")
    view = tile(src, record, "src")
    raw, undefined = view.read()
    try:
        out = np.broadcast_to(raw, shape)
    except ValueError:
        fail("R11", "broadcast_to: cannot broadcast %s to %s" % (list(view.shape), list(shape)))
    if shape[0] > 128:
        fail("R6", "broadcast_to: %d partitions exceed 128" % shape[0])
    record["n"] = int(np.prod(shape[1:]))
    return result(record, out, shape, view.dtype, explicit_dtype=True,
                  undefined=undefined_union(shape, undefined))


# -- nl-level math ------------------------------------------------------------------------
def _is_tile(x):
    return isinstance(x, (Tensor, View))


def _elementwise(name, x, y, dtype, mask):
    op = _ops.alu(name)
    if not _is_tile(x) and not _is_tile(y):
        fail("R11", "nl.%s needs at least one tile operand" % name)
    if _is_tile(x) and _is_tile(y):
        xs, ys = tuple(as_view(x).shape), tuple(as_view(y).shape)
        if xs == ys:
            return nisa.tensor_tensor(x, y, op, dtype=dtype, mask=mask)
        if len(ys) >= 2 and ys == (xs[0],) + (1,) * (len(ys) - 1) and xs[0] == ys[0]:
            return nisa.tensor_scalar(x, op, y, dtype=dtype, mask=mask)
        if len(xs) >= 2 and xs == (ys[0],) + (1,) * (len(xs) - 1) and xs[0] == ys[0]:
            return nisa.tensor_scalar(y, op, x, reverse0=True, dtype=dtype, mask=mask)
        if xs[0] != ys[0]:
            fail("R11", "nl.%s: number of partitions mismatch (%s vs %s); use nl.broadcast_to "
                 "to broadcast along the partition dimension" % (name, list(xs), list(ys)))
        return nisa.tensor_tensor(x, y, op, dtype=dtype, mask=mask)
    if _is_tile(x):
        return nisa.tensor_scalar(x, op, y, dtype=dtype, mask=mask)
    return nisa.tensor_scalar(y, op, x, reverse0=True, dtype=dtype, mask=mask)


def _binary(name, default_dtype=None):
    def function(x, y, *, dtype=default_dtype, mask=None, **kwargs):
        return _elementwise(name, x, y, dtype, mask)
    function.__name__ = function.__qualname__ = name
    _ops.register(function, name)
    return function


add, subtract, multiply, divide = (_binary(n) for n in ("add", "subtract", "multiply", "divide"))
maximum, minimum, power = (_binary(n) for n in ("maximum", "minimum", "power"))
equal, not_equal = _binary("equal", bool_), _binary("not_equal", bool_)
greater, greater_equal = _binary("greater", bool_), _binary("greater_equal", bool_)
less, less_equal = _binary("less", bool_), _binary("less_equal", bool_)
logical_and, logical_or = _binary("logical_and", bool_), _binary("logical_or", bool_)
logical_xor = _binary("logical_xor", bool_)
bitwise_and, bitwise_or, bitwise_xor = (_binary(n) for n in ("bitwise_and", "bitwise_or",
                                                             "bitwise_xor"))
left_shift, right_shift = _binary("left_shift"), _binary("right_shift")


def _unary(name):
    def function(x, *, dtype=None, mask=None, **kwargs):
        return nisa.activation(function, x, dtype=dtype, mask=mask)
    function.__name__ = function.__qualname__ = name
    _ops.register(function, name)
    return function


(exp, log, sqrt, rsqrt, square, sigmoid, silu, silu_dx, tanh, relu, gelu, gelu_dx,
 gelu_apprx_tanh, gelu_apprx_sigmoid, softplus, mish, erf, erf_dx, sin, arctan, sign,
 abs, reciprocal) = (_unary(n) for n in (
    "exp", "log", "sqrt", "rsqrt", "square", "sigmoid", "silu", "silu_dx", "tanh", "relu",
    "gelu", "gelu_dx", "gelu_apprx_tanh", "gelu_apprx_sigmoid", "softplus", "mish", "erf",
    "erf_dx", "sin", "arctan", "sign", "abs", "reciprocal"))
_ops.register(copy, "copy")


def _scalar_engine_only(name):
    """nl functions with no activation-table entry, computed on the Scalar engine anyway."""
    def function(x, *, dtype=None, mask=None, **kwargs):
        record = begin(choices.NL_UNARY_ENGINE, "activation")
        record["func"] = name
        view = tile(x, record, "x")
        valid = mask_array(mask, view.shape)
        x, undefined = values(view, valid)
        with np.errstate(all="ignore"):
            out = _ops.NL_ONLY_UNARY[name](x).astype(np.float32)
        return result(record, out, view.shape, output_dtype(dtype, view.dtype, record),
                      explicit_dtype=dtype is not None, valid=valid, undefined=undefined)
    function.__name__ = function.__qualname__ = name
    _ops.register(function, name)
    return function


cos, tan, floor, ceil, trunc = (_scalar_engine_only(n) for n in ("cos", "tan", "floor", "ceil",
                                                                  "trunc"))


def negative(x, *, dtype=None, mask=None, **kwargs):
    return nisa.tensor_scalar(x, np.multiply, -1.0, dtype=dtype, mask=mask)


_ops.register(negative, "negative")


def _reduction(numpy_op):
    def function(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
        return nisa.tensor_reduce(numpy_op, x, axis, dtype=dtype, mask=mask, keepdims=keepdims)
    return function


sum, max, min, prod = (_reduction(o) for o in (np.add, np.maximum, np.minimum, np.multiply))


def mean(x, axis, *, dtype=None, mask=None, keepdims=False, **kwargs):
    view = as_view(x)
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    count = int(np.prod([view.shape[a] for a in axes])) if view is not None else 1
    total = nisa.tensor_reduce(np.add, x, axis, dtype=dt.float32, mask=mask, keepdims=keepdims)
    return nisa.tensor_scalar(total, np.multiply, 1.0 / count, dtype=dtype or view.dtype)


def matmul(x, y, *, transpose_x=False, mask=None, **kwargs):
    if transpose_x:
        return nisa.nc_matmul(x, y, mask=mask)
    transposed = nisa.nc_transpose(x, engine=nisa.tensor_engine)
    return nisa.nc_matmul(nisa.tensor_copy(transposed), y, mask=mask)


def transpose(x, *, dtype=None, mask=None, **kwargs):
    """nc_transpose; a Tensor-engine result is copied out of PSUM, as nl results live in SBUF."""
    transposed = nisa.nc_transpose(x, dtype=dtype, mask=mask)
    if transposed.buffer is PSUM:
        return nisa.tensor_copy(transposed)
    return transposed


def where(condition, x, y, *, dtype=None, mask=None, **kwargs):
    record = begin("vector", "select")
    cond = tile(condition, record, "condition")
    on_true = tile(x, record, "x")
    valid = mask_array(mask, cond.shape)
    chosen, undefined_cond = values(cond, valid)
    chosen = chosen != 0
    undefined_false = None
    if _is_tile(y):
        on_false, undefined_false = values(tile(y, record, "y"), valid)
        out_dtype = dt.promote(on_true.dtype, as_view(y).dtype)
    else:
        on_false = np.float32(y)
        out_dtype = on_true.dtype
    on_true_values, undefined_true = values(on_true, valid)
    out = np.where(chosen, on_true_values, on_false)
    undefined = undefined_union(cond.shape, undefined_cond, undefined_true, undefined_false)
    return result(record, out, cond.shape, output_dtype(dtype, out_dtype, record),
                  explicit_dtype=dtype is not None, valid=valid, undefined=undefined)


del builtins
