"""neuronxcc.nki.isa: the Beta 1 instructions, simulated in NumPy (float32 engine math).

Signatures follow the Beta 1 docstring stubs (aws-neuron-sdk general/nki/api/nki/isa at
cca37847). Each call checks its operand rules, records one trace record and returns its
output tile (or writes its destination, for dma_copy).
"""
import warnings
from enum import IntEnum

import numpy as np

from . import _choices as choices
from . import _dtypes as dt
from . import _ops
from . import _sim
from ._errors import fail, kernel_location
from ._exec import (begin, free_size, mask_array, not_both_psum, output_dtype, result, row_mask,
                    scalar_operand, tile, values)
from ._index import IndexExpr, Mask
from ._tensor import (ON_CHIP, PSUM, SBUF, Tensor, View, as_view, check_defined, describe,
                      operand_record, per_partition, undefined_map, undefined_union)


class engine(IntEnum):
    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    vector = 5
    sync = 6


tensor_engine = engine.tensor
vector_engine = engine.vector
scalar_engine = engine.scalar
gpsimd_engine = engine.gpsimd
unknown_engine = engine.unknown
dma_engine = "dma"


class reduce_cmd(IntEnum):
    idle = 0
    reset = 1
    reduce = 2
    reset_reduce = 3


class oob_mode(IntEnum):
    error = 0
    skip = 1


class dge_mode(IntEnum):
    none = 0
    swdge = 1
    hwdge = 2
    unknown = 3


class nc_version(IntEnum):
    gen2 = 2
    gen3 = 3


def get_nc_version():
    return nc_version.gen2


_ENGINE_NAMES = {engine.tensor: "tensor", engine.vector: "vector", engine.scalar: "scalar",
                 engine.gpsimd: "gpsimd"}


def _engine(requested, default, allowed, opcode):
    if requested is None or requested == engine.unknown:
        return default
    name = _ENGINE_NAMES.get(requested)
    if name not in allowed:
        fail("R14", "%s cannot run on engine %r (allowed: %s)" % (opcode, requested,
                                                                 ", ".join(allowed)))
    return name


def _op(op, record, role, kinds):
    name = _ops.name_of(op)
    kind = _ops.kind(name) if name else None
    if kind not in kinds:
        fail("R14", "%s: %s=%s is not %s" % (record["op"], role, getattr(op, "__name__", op),
                                             " or ".join("an %s operator" % k for k in kinds)))
    return name


def _gpsimd_no_psum(engine_name, record, *views):
    if engine_name == "gpsimd":
        for view in views:
            if view is not None and view.tensor.buffer is PSUM:
                fail("R4", "%s on GpSimd cannot access PSUM (%s)"
                     % (record["op"], describe(view.tensor)))


def _allowed_out(engine_name):
    return (SBUF,) if engine_name == "gpsimd" else ON_CHIP


# -- Tensor engine ----------------------------------------------------------------------
def nc_matmul(stationary, moving, *, is_stationary_onezero=False, is_moving_onezero=False,
              is_transpose=False, tile_position=(), tile_size=(), mask=None, **kwargs):
    record = begin("tensor", "nc_matmul")
    s = tile(stationary, record, "stationary", buffers=(SBUF,))
    m = tile(moving, record, "moving", buffers=(SBUF,))
    for view, role in ((s, "stationary"), (m, "moving")):
        if view.dtype not in dt.MATMUL_OPERAND_DTYPES:
            fail("R26", "nc_matmul: %s is %s; operands must be fp8/bf16/fp16/tf32/fp32"
                 % (role, dt.name(view.dtype)))
    k, m_size, n_size = s.shape[0], free_size(s.shape), free_size(m.shape)
    if m.shape[0] != k:
        fail("R8", "nc_matmul: the partition (contraction) sizes differ: stationary %s, moving %s"
             % (list(s.shape), list(m.shape)))
    if m_size > 128:
        fail("R8", "nc_matmul: stationary free size %d exceeds gemm_stationary_fmax 128" % m_size)
    if n_size > 512:
        fail("R8", "nc_matmul: moving free size %d exceeds gemm_moving_fmax 512" % n_size)
    out_shape = (m_size,) + tuple(m.shape[1:])
    a, undefined_a = values(s, mask_array(mask, s.shape, required=False))
    b, undefined_b = values(m, mask_array(mask, m.shape, required=False))
    product = None if _sim.current.dry else a.reshape(k, m_size).T @ b.reshape(k, n_size)
    record["mkn"] = [m_size, k, n_size]
    # out[i, j] sums over every partition k: undefined if any stationary[k, i] or moving[k, j] is.
    undefined = undefined_union(
        (m_size, n_size),
        undefined_map(undefined_a, lambda u: u.reshape(k, m_size).any(axis=0)[:, None]),
        undefined_map(undefined_b, lambda u: u.reshape(k, n_size).any(axis=0)[None, :]))
    return result(record, product, out_shape, dt.float32, buffer=PSUM, allowed=(PSUM,),
                  valid=mask_array(mask, out_shape, required=False), matmul=True,
                  undefined=undefined_map(undefined, lambda u: u.reshape(out_shape)))


def nc_transpose(data, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    view = as_view(data)
    shape = view.shape if view is not None else (0, 0)
    small = len(shape) >= 1 and shape[0] <= choices.VECTOR_TRANSPOSE_MAX and \
        free_size(shape) <= choices.VECTOR_TRANSPOSE_MAX
    engine_name = _engine(engine, "vector" if small else "tensor", ("tensor", "vector"),
                          "nc_transpose")
    record = begin(engine_name, "nc_transpose")
    on_tensor = engine_name == "tensor"
    view = tile(data, record, "data", buffers=(SBUF,) if on_tensor else ON_CHIP)
    p, f = view.shape[0], free_size(view.shape)
    limit = 128 if on_tensor else 32
    if p > limit or f > limit:
        fail("R9", "nc_transpose on the %s engine handles at most %dx%d; the tile is %dx%d"
             % (engine_name, limit, limit, p, f))
    valid = mask_array(mask, view.shape)
    x, undefined = values(view, valid)
    x = x.reshape(p, f)
    if on_tensor and not np.isfinite(x).all():
        warnings.warn("R29: Tensor-engine nc_transpose of NaN/Inf is not bit-exact on "
                      "NeuronCore-v2")
    out_dtype = output_dtype(dtype, view.dtype, record)
    out_valid = None if valid is None else valid.reshape(p, f).T
    return result(record, x.T, (f, p), out_dtype, explicit_dtype=dtype is not None,
                  buffer=PSUM if on_tensor else SBUF, allowed=(PSUM,) if on_tensor else ON_CHIP,
                  valid=out_valid, undefined=undefined_map(undefined, lambda u: u.reshape(p, f).T))


# -- Scalar engine ----------------------------------------------------------------------
def activation(op, data, *, bias=None, scale=1.0, reduce_op=None, reduce_res=None,
               reduce_cmd=reduce_cmd.idle, mask=None, dtype=None, **kwargs):
    record = begin("scalar", "activation")
    name = _op(op, record, "op", ("activation",))
    record["func"] = name
    view = tile(data, record, "data")
    p = view.shape[0]
    valid = mask_array(mask, view.shape)
    x, undefined = values(view, valid)
    if isinstance(scale, (Tensor, View)):
        if scale.dtype != dt.float32:
            fail("R26", "activation: scale must be float32, got %s" % dt.name(scale.dtype))
    scale_values, undefined_scale, _ = scalar_operand(scale, record, "scale", p, valid)
    bias_values, undefined_bias = np.float32(0), None
    if bias is not None:
        if not isinstance(bias, (Tensor, View)):
            fail("R11", "activation: bias must be a [%d, 1] tile (a vector with one value per "
                 "partition), not a %s" % (p, type(bias).__name__))
        if bias.dtype not in (dt.float32, dt.float16, dt.bfloat16):
            fail("R26", "activation: bias must be float32, float16 or bfloat16, got %s"
                 % dt.name(bias.dtype))
        bias_values, undefined_bias, _ = scalar_operand(bias, record, "bias", p, valid)

    def shaped(v):
        return v.reshape((p,) + (1,) * (x.ndim - 1)) if np.ndim(v) else v

    undefined = undefined_union(view.shape, undefined,
                                per_partition(undefined_scale, view.shape),
                                per_partition(undefined_bias, view.shape))
    argument = x * shaped(scale_values) + shaped(bias_values)
    _check_input_range(name, argument, valid, undefined)
    with np.errstate(all="ignore"):
        y = np.asarray(_ops.ACTIVATIONS[name](argument), dtype=np.float32)
    if reduce_op is not None or reduce_res is not None or reduce_cmd != 0:
        _activation_reduce(record, y, valid, undefined, p, reduce_op, reduce_res, reduce_cmd)
    return result(record, y, view.shape, output_dtype(dtype, view.dtype, record),
                  explicit_dtype=dtype is not None, valid=valid, undefined=undefined)


def _check_input_range(name, argument, valid, undefined):
    if _sim.current.dry:
        return
    """R15: the documented input range of log/sin/sqrt/rsqrt/reciprocal; outside it the
    hardware returns an invalid result rather than failing, so this is a warning."""
    bounds = _ops.INPUT_RANGES.get(name)
    if bounds is None:
        return
    low, high, symmetric = bounds
    checked = np.ones(argument.shape, dtype=bool) if valid is None else valid.copy()
    if undefined is not None:
        checked &= ~undefined.mask
    magnitude = np.abs(argument) if symmetric else argument
    outside = checked & ~((magnitude >= low) & (magnitude <= high))
    if outside.any():
        first = tuple(int(i) for i in np.argwhere(outside)[0])
        warnings.warn("R15: %s:%d: activation %s: %d inputs outside its documented range "
                      "%s[%g, %g] (first %r at index %s); the Scalar engine's result there is "
                      "invalid" % (kernel_location() + (name, int(outside.sum()),
                                   "±" if symmetric else "", low, high,
                                   float(argument[first]), first)))


def _activation_reduce(record, y, valid, undefined, p, reduce_op, reduce_res, command):
    if reduce_op is not None and _ops.name_of(reduce_op) != "add":
        fail("R13", "activation: reduce_op must be add on NeuronCore-v2, got %s"
             % getattr(reduce_op, "__name__", reduce_op))
    live = y if valid is None else np.where(valid, y, np.float32(0))
    rows = live.reshape(p, -1).sum(axis=1, dtype=np.float32)
    rows_undefined = undefined_map(undefined, lambda u: u.reshape(p, -1).any(axis=1))
    sim = _sim.active()
    if sim.activation_registers is None or command in (reduce_cmd.reset, reduce_cmd.reset_reduce):
        sim.activation_registers = np.zeros(128, dtype=np.float32)
        sim.activation_registers_undefined = None
    if command in (reduce_cmd.reduce, reduce_cmd.reset_reduce):
        sim.activation_registers[:p] += rows
        rows = sim.activation_registers[:p].copy()
        padded = undefined_map(rows_undefined, lambda u: np.pad(u, (0, 128 - p)))
        sim.activation_registers_undefined = undefined_union(
            (128,), sim.activation_registers_undefined, padded)
        rows_undefined = undefined_map(sim.activation_registers_undefined, lambda u: u[:p])
    if reduce_res is None:
        return
    target = tile(reduce_res, record, "reduce_res")
    if tuple(target.shape) != (p, 1):
        fail("R13", "activation: reduce_res must be a [%d, 1] tile, got %s"
             % (p, list(target.shape)))
    # A masked instruction leaves the partitions outside its mask untouched.
    target.write(dt.cast(rows.reshape(p, 1), target.dtype), row_mask(valid, p),
                 undefined_map(rows_undefined, lambda u: u.reshape(p, 1)))


def activation_reduce(op, data, *, reduce_op, reduce_res, bias=None, scale=1.0, mask=None,
                      dtype=None, **kwargs):
    return activation(op, data, bias=bias, scale=scale, reduce_op=reduce_op,
                      reduce_res=reduce_res, mask=mask, dtype=dtype)


# -- Vector / GpSimd engines ------------------------------------------------------------
def _alu(name, a, b):
    fn = _ops.alu(name)
    if _ops.kind(name) == "bitvec":
        return fn(a.astype(np.int64), np.asarray(b).astype(np.int64))
    with np.errstate(all="ignore"):
        return np.asarray(fn(a, b)).astype(np.float32)


def _raw_or_f32(view, valid, bitvec):
    if bitvec:
        raw, undefined = view.read(valid)
        return (raw if valid is None else np.where(valid, raw, 0)), undefined
    return values(view, valid)


def _require_int(record, name, *views):
    for view in views:
        if view is not None and not dt.is_int(view.dtype):
            fail("R14", "%s: the bitvec operator %s needs integer data, got %s"
                 % (record["op"], name, dt.name(view.dtype)))


def tensor_tensor(data1, data2, op, *, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    engine_name = _engine(engine, "vector", ("vector", "gpsimd"), "tensor_tensor")
    record = begin(engine_name, "tensor_tensor")
    name = _op(op, record, "op", ("arith", "compare", "bitvec"))
    record["alu"] = name
    a, b = tile(data1, record, "data1"), tile(data2, record, "data2")
    not_both_psum(record, a, b, ("data1", "data2"))
    _gpsimd_no_psum(engine_name, record, a, b)
    if a.shape[0] != b.shape[0] or free_size(a.shape) != free_size(b.shape):
        fail("R11", "tensor_tensor: data1 %s and data2 %s differ in partitions or elements per "
             "partition" % (list(a.shape), list(b.shape)))
    bitvec = _ops.kind(name) == "bitvec"
    if bitvec:
        _require_int(record, name, a, b)
    valid = mask_array(mask, a.shape)
    x, undefined_x = _raw_or_f32(a, valid, bitvec)
    y, undefined_y = _raw_or_f32(b, None if valid is None else valid.reshape(b.shape), bitvec)
    out = _alu(name, x, y.reshape(x.shape))
    undefined = undefined_union(a.shape, undefined_x,
                                undefined_map(undefined_y, lambda u: u.reshape(a.shape)))
    return result(record, out, a.shape,
                  output_dtype(dtype, dt.promote(a.dtype, b.dtype), record),
                  explicit_dtype=dtype is not None, allowed=_allowed_out(engine_name),
                  valid=valid, undefined=undefined)


_SCALAR_ENGINE_PAIRS = {("multiply", "add"), ("multiply", None), ("add", None)}


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False,
                  *, dtype=None, mask=None, engine=engine.unknown, **kwargs):
    engine_name = _engine(engine, choices.DEFAULT_TENSOR_SCALAR_ENGINE,
                          ("vector", "scalar", "gpsimd"), "tensor_scalar")
    record = begin(engine_name, "tensor_scalar")
    name0 = _op(op0, record, "op0", ("arith", "compare", "bitvec"))
    name1 = None if op1 is None else _op(op1, record, "op1", ("arith", "compare", "bitvec"))
    record["alu"] = [name0, name1]
    view = tile(data, record, "data")
    bitvec = _ops.kind(name0) == "bitvec"
    if name1 is not None and (_ops.kind(name1) == "bitvec") != bitvec:
        fail("R14", "tensor_scalar: op0 and op1 must both be arithmetic or both bitvec")
    if bitvec:
        _require_int(record, name0, view)
        if engine_name != "vector":
            fail("R14", "tensor_scalar: bitvec operators run on the Vector engine only")
    if engine_name == "scalar" and (name0, name1) not in _SCALAR_ENGINE_PAIRS:
        fail("R14", "tensor_scalar on the Scalar engine supports only multiply+add, multiply, "
             "add; got %s, %s" % (name0, name1))
    p = view.shape[0]
    valid = mask_array(mask, view.shape)
    x, undefined = _raw_or_f32(view, valid, bitvec)
    operands = []
    for operand, role in ((operand0, "operand0"), (operand1, "operand1")):
        if role == "operand1" and op1 is None:
            break
        scalar, undefined_scalar, operand_view = scalar_operand(operand, record, role, p, valid)
        undefined = undefined_union(view.shape, undefined,
                                    per_partition(undefined_scalar, view.shape))
        _gpsimd_no_psum(engine_name, record, operand_view)
        if np.ndim(scalar):
            scalar = scalar.reshape((p,) + (1,) * (x.ndim - 1))
        operands.append(scalar)
    _gpsimd_no_psum(engine_name, record, view)
    out = _alu(name0, operands[0], x) if reverse0 else _alu(name0, x, operands[0])
    if name1 is not None:
        out = _alu(name1, operands[1], out) if reverse1 else _alu(name1, out, operands[1])
    return result(record, out, view.shape, output_dtype(dtype, view.dtype, record),
                  explicit_dtype=dtype is not None, allowed=_allowed_out(engine_name),
                  valid=valid, undefined=undefined)


def scalar_tensor_tensor(*, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False,
                         dtype=None, mask=None, **kwargs):
    record = begin("vector", "scalar_tensor_tensor")
    name0 = _op(op0, record, "op0", ("arith", "compare"))
    name1 = _op(op1, record, "op1", ("arith", "compare"))
    view = tile(data, record, "data")
    other = tile(operand1, record, "operand1")
    not_both_psum(record, view, other, ("data", "operand1"))
    if tuple(other.shape) != tuple(view.shape):
        fail("R11", "scalar_tensor_tensor: operand1 %s must have data's shape %s"
             % (list(other.shape), list(view.shape)))
    valid = mask_array(mask, view.shape)
    x, undefined_x = values(view, valid)
    scalar, undefined_scalar, _ = scalar_operand(operand0, record, "operand0", view.shape[0],
                                                 valid)
    if np.ndim(scalar):
        scalar = scalar.reshape((view.shape[0],) + (1,) * (x.ndim - 1))
    out = _alu(name0, scalar, x) if reverse0 else _alu(name0, x, scalar)
    y, undefined_y = values(other, valid)
    out = _alu(name1, y, out) if reverse1 else _alu(name1, out, y)
    undefined = undefined_union(view.shape, undefined_x, undefined_y,
                                per_partition(undefined_scalar, view.shape))
    return result(record, out, view.shape, output_dtype(dtype, view.dtype, record),
                  explicit_dtype=dtype is not None, valid=valid, undefined=undefined)


_IDENTITY = {"add": 0, "maximum": -np.inf, "minimum": np.inf, "multiply": 1,
             "bitwise_and": -1, "bitwise_or": 0}


def tensor_reduce(op, data, axis, *, mask=None, dtype=None, negate=False, keepdims=False,
                  **kwargs):
    record = begin("vector", "tensor_reduce")
    name = _ops.name_of(op)
    if name not in _ops.REDUCE:
        fail("R14", "tensor_reduce: %s is not a reduction operator (add, maximum, minimum, "
             "multiply, bitwise_and, bitwise_or)" % getattr(op, "__name__", op))
    record["alu"] = name
    view = tile(data, record, "data")
    axes = sorted([axis] if isinstance(axis, (int, np.integer)) else list(axis))
    last = len(view.shape) - 1
    if (not axes or 0 in axes or len(axes) > 4 or axes[-1] != last
            or axes != list(range(axes[0], last + 1))):
        fail("R12", "tensor_reduce: axis=%s must be consecutive free axes ending at the last "
             "axis %d (never the partition axis 0, at most 4)" % (list(axes), last))
    bitvec = _ops.kind(name) == "bitvec"
    if bitvec:
        _require_int(record, name, view)
        if negate:
            fail("R14", "tensor_reduce: negate applies to arithmetic operators only")
    valid = mask_array(mask, view.shape)
    x, undefined = view.read(valid)
    if not bitvec:
        x = x.astype(np.float32)
    if valid is not None:
        x = np.where(valid, x, _IDENTITY[name] if not bitvec else (0 if name == "bitwise_or" else -1))
    out = _ops.REDUCE[name](x, axis=tuple(axes), keepdims=keepdims)
    if negate:
        out = -out
    out_shape = tuple(1 if keepdims and a in axes else s
                      for a, s in enumerate(view.shape) if keepdims or a not in axes)

    def reduced(mask):
        return np.any(mask, axis=tuple(axes), keepdims=keepdims).reshape(out_shape)

    # A masked reduction writes only the outputs with at least one element inside its mask.
    return result(record, np.asarray(out).astype(np.float32) if not bitvec else out, out_shape,
                  output_dtype(dtype, view.dtype, record), explicit_dtype=dtype is not None,
                  valid=None if valid is None else reduced(valid),
                  undefined=undefined_map(undefined, reduced))


def tensor_copy(src, *, mask=None, dtype=None, engine=engine.unknown, **kwargs):
    engine_name = _engine(engine, choices.DEFAULT_COPY_ENGINE, ("vector", "scalar", "gpsimd"),
                          "tensor_copy")
    record = begin(engine_name, "tensor_copy")
    view = tile(src, record, "src")
    _gpsimd_no_psum(engine_name, record, view)
    out_dtype = output_dtype(dtype, view.dtype, record)
    valid = mask_array(mask, view.shape)
    exact = out_dtype == view.dtype and engine_name != "scalar"
    raw, undefined = view.read(valid)
    computed = raw if exact else raw.astype(np.float32)
    return result(record, computed, view.shape, out_dtype, explicit_dtype=True,
                  allowed=_allowed_out(engine_name), valid=valid, undefined=undefined)


def reciprocal(data, *, dtype=None, mask=None, **kwargs):
    record = begin("vector", "reciprocal")
    view = tile(data, record, "data")
    valid = mask_array(mask, view.shape)
    x, undefined = values(view, valid)
    with np.errstate(all="ignore"):
        out = np.float32(1) / x
    return result(record, out, view.shape, output_dtype(dtype, view.dtype, record),
                  explicit_dtype=dtype is not None, valid=valid, undefined=undefined)


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, *,
                       dtype=None, mask=None, **kwargs):
    record = begin("vector", "tensor_tensor_scan")
    name0 = _op(op0, record, "op0", ("arith",))
    name1 = _op(op1, record, "op1", ("arith",))
    a, b = tile(data0, record, "data0"), tile(data1, record, "data1")
    not_both_psum(record, a, b, ("data0", "data1"))
    if tuple(a.shape) != tuple(b.shape):
        fail("R11", "tensor_tensor_scan: data0 %s and data1 %s must have the same shape"
             % (list(a.shape), list(b.shape)))
    p = a.shape[0]
    valid = mask_array(mask, a.shape)
    x, undefined_x = values(a, valid)
    y, undefined_y = values(b, valid)
    x, y = x.reshape(p, -1), y.reshape(p, -1)
    carry, undefined_initial, _ = scalar_operand(initial, record, "initial", p, valid)
    carry = np.broadcast_to(np.asarray(carry, dtype=np.float32).reshape(-1), (p,)).copy()
    out = np.empty_like(x)
    for column in range(x.shape[1]):
        step = _alu(name0, carry, x[:, column]) if reverse0 else _alu(name0, x[:, column], carry)
        carry = _alu(name1, y[:, column], step) if reverse1 else _alu(name1, step, y[:, column])
        out[:, column] = carry
    # Each output element depends on every earlier column of its partition and the initial.
    undefined = undefined_union((p, x.shape[1]), undefined_map(
        undefined_union(a.shape, undefined_x, undefined_y),
        lambda u: np.logical_or.accumulate(u.reshape(p, -1), axis=1)),
        undefined_initial)
    return result(record, out, a.shape, output_dtype(dtype, a.dtype, record),
                  explicit_dtype=dtype is not None, valid=valid,
                  undefined=undefined_map(undefined, lambda u: u.reshape(a.shape)))


def bn_stats(data, *, mask=None, dtype=None, **kwargs):
    record = begin("vector", "bn_stats")
    view = tile(data, record, "data")
    p, f = view.shape[0], free_size(view.shape)
    if f > 512:
        fail("R12", "bn_stats: %d elements per partition exceed bn_stats_fmax 512" % f)
    valid = mask_array(mask, view.shape)
    x, undefined = values(view, valid)
    x = x.reshape(p, f).astype(np.float64)
    stats = []
    for half in (x[:, 0::2], x[:, 1::2]):
        count = half.shape[1]
        mean = half.mean(axis=1) if count else np.zeros(p)
        m2 = ((half - mean[:, None]) ** 2).sum(axis=1) if count else np.zeros(p)
        stats += [np.full(p, count, dtype=np.float64), mean, m2]
    return result(record, np.stack(stats, axis=1).astype(np.float32), (p, 6),
                  output_dtype(dtype, view.dtype, record), explicit_dtype=dtype is not None,
                  valid=row_mask(valid, p), undefined=_rows_undefined(undefined, p, 6))


def _rows_undefined(undefined, partitions, width):
    """A per-partition statistic of width `width` is undefined if any input in its row is."""
    return undefined_map(undefined, lambda u: np.broadcast_to(
        u.reshape(partitions, -1).any(axis=1)[:, None], (partitions, width)))


def bn_aggr(data, *, mask=None, dtype=None, **kwargs):
    record = begin("vector", "bn_aggr")
    view = tile(data, record, "data")
    p, f = view.shape[0], free_size(view.shape)
    if f % 3:
        fail("R12", "bn_aggr: elements per partition (%d) must be a multiple of 3 "
             "(count, mean, variance*count groups from bn_stats)" % f)
    valid = mask_array(mask, view.shape)
    groups, undefined = values(view, valid)
    groups = groups.reshape(p, f // 3, 3).astype(np.float64)
    count, mean, m2 = groups[..., 0], groups[..., 1], groups[..., 2]
    total = count.sum(axis=1)
    safe = np.where(total > 0, total, 1)
    grand = (count * mean).sum(axis=1) / safe
    variance = (m2 + count * (mean - grand[:, None]) ** 2).sum(axis=1) / safe
    return result(record, np.stack([grand, variance], axis=1).astype(np.float32), (p, 2),
                  output_dtype(dtype, view.dtype, record), explicit_dtype=dtype is not None,
                  valid=row_mask(valid, p), undefined=_rows_undefined(undefined, p, 2))


def memset(shape, value, dtype, *, mask=None, engine=engine.unknown, **kwargs):
    engine_name = _engine(engine, choices.DEFAULT_MEMSET_ENGINE, ("vector", "gpsimd"), "memset")
    record = begin(engine_name, "memset")
    out_dtype = output_dtype(dtype, dt.float32, record)
    shape = tuple(int(s) for s in shape)
    if shape and shape[0] > 128:
        fail("R6", "memset: size of partition dimension %d exceeds architecture limitation of "
             "128" % shape[0])
    record["n"] = free_size(shape)
    return result(record, np.full(shape, value, dtype=np.float64), shape, out_dtype,
                  explicit_dtype=True, allowed=_allowed_out(engine_name),
                  valid=mask_array(mask, shape))


def iota(expr, dtype, *, mask=None, **kwargs):
    record = begin("gpsimd", "iota")
    if not isinstance(expr, IndexExpr):
        if isinstance(expr, (int, np.integer)):
            expr = IndexExpr(expr)
        else:
            fail("R19", "iota takes an affine expression of nl.arange indices")
    pattern = expr.values.astype(np.int32)
    if pattern.ndim == 0:
        pattern = pattern.reshape(1, 1)
    if pattern.ndim == 1:
        fail("R19", "iota: a 1-D nl.arange pattern has no partition axis; use "
             "nl.arange(n)[:, None] or [None, :]")
    if pattern.shape[0] > 128:
        fail("R6", "iota: %d partitions exceed 128" % pattern.shape[0])
    record["n"] = free_size(pattern.shape)
    return result(record, pattern, pattern.shape, output_dtype(dtype, dt.int32, record),
                  explicit_dtype=True, allowed=(SBUF,), valid=mask_array(mask, pattern.shape))


def affine_select(pred, on_true_tile, on_false_value, *, mask=None, dtype=None, **kwargs):
    record = begin("gpsimd", "affine_select")
    view = tile(on_true_tile, record, "on_true_tile", buffers=(SBUF,))
    if isinstance(pred, Mask):
        chosen = pred.values
    elif isinstance(pred, IndexExpr):
        chosen = pred.values > 0
    else:
        fail("R19", "affine_select: pred must be an affine expression of nl.arange indices")
    try:
        chosen = np.broadcast_to(chosen, view.shape)
    except ValueError:
        fail("R11", "affine_select: pred of shape %s does not fit the tile %s"
             % (list(np.shape(chosen)), list(view.shape)))
    valid = mask_array(mask, view.shape)
    x, undefined = values(view, chosen if valid is None else valid & chosen)
    out = np.where(chosen, x, np.float32(on_false_value))
    return result(record, out, view.shape, output_dtype(dtype, view.dtype, record),
                  explicit_dtype=dtype is not None, allowed=(SBUF,), valid=valid,
                  undefined=undefined)


# -- DMA ------------------------------------------------------------------------------------
def dma_endpoint(x, record, role):
    view = as_view(x)
    if view is None:
        fail("R3", "%s: %s must be an HBM or SBUF tensor, got %s"
             % (record["op"], role, type(x).__name__))
    if view.tensor.buffer is PSUM:
        fail("R3", "%s: %s is %s; DMA never reads or writes PSUM"
             % (record["op"], role, describe(view.tensor)))
    if view.tensor.buffer is SBUF and view.shape and view.shape[0] > 128:
        fail("R6", "%s: size of partition dimension %d exceeds architecture limitation of 128"
             % (record["op"], view.shape[0]))
    entry = operand_record(view)
    entry["role"] = role
    record["in" if role == "src" else "out_list"] = record.get(
        "in" if role == "src" else "out_list", []) + [entry]
    return view


def count_dma_bytes(record, source, dest, elements):
    sim = _sim.active()
    nbytes = int(elements) * source.tensor.dtype.itemsize
    record["bytes"] = nbytes
    if source.tensor.buffer.is_hbm:
        sim.hbm_read_bytes += nbytes
    if dest is not None and dest.tensor.buffer.is_hbm:
        sim.hbm_write_bytes += int(elements) * dest.tensor.dtype.itemsize


def dma_copy(*, dst, src, mask=None, dst_rmw_op=None, oob_mode=oob_mode.error,
             dge_mode=dge_mode.unknown, **kwargs):
    record = begin("dma", "dma_copy")
    source = dma_endpoint(src, record, "src")
    dest = dma_endpoint(dst, record, "dst")
    record["out"] = record.pop("out_list")[0]
    if tuple(source.shape) != tuple(dest.shape):
        fail("R11", "dma_copy: src %s and dst %s must have the same shape"
             % (list(source.shape), list(dest.shape)))
    valid = mask_array(mask, dest.shape)
    raw, undefined = source.read(valid)
    if dst_rmw_op is not None:
        if _ops.name_of(dst_rmw_op) != "add":
            fail("R14", "dma_copy: dst_rmw_op supports only np.add")
        current, undefined_dest = dest.read(valid)
        raw = current.astype(np.float32) + raw.astype(np.float32)
        undefined = undefined_union(dest.shape, undefined, undefined_dest)
        record["rmw"] = "add"
    elif dest.dtype != source.dtype:
        raw = raw.astype(np.float32)
    if dest.tensor.buffer.is_hbm:
        check_defined(undefined, "dma_copy", dest)
    dest.write(dt.cast(raw, dest.dtype), valid, undefined)
    count_dma_bytes(record, source, dest, raw.size if valid is None else int(valid.sum()))


def dma_transpose(src, *, axes=None, mask=None, dtype=None, **kwargs):
    record = begin("dma", "dma_transpose")
    source = dma_endpoint(src, record, "src")
    if len(source.shape) != 2 or axes not in (None, (1, 0), [1, 0]):
        fail("unsupported", "dma_transpose is simulated for 2-D tiles (axes=(1, 0)) only")
    out_shape = (source.shape[1], source.shape[0])
    if out_shape[0] > 128:
        fail("R6", "dma_transpose: %d partitions exceed 128" % out_shape[0])
    valid = mask_array(mask, source.shape)
    raw, undefined = source.read(valid)
    count_dma_bytes(record, source, None, raw.size)
    return result(record, raw.T, out_shape, output_dtype(dtype, source.dtype, record),
                  explicit_dtype=True, allowed=(SBUF,),
                  valid=None if valid is None else valid.T,
                  undefined=undefined_map(undefined, lambda u: u.T))
