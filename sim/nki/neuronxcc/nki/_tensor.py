"""Tensors (one allocation in HBM, SBUF or PSUM) and views (an indexed region of one).

A Tensor owns a NumPy array in its storage dtype, a `written` bitmap (on-chip memory starts
unwritten) and an `undefined` bitmap: elements whose value was computed from never-written
memory. Reading unwritten memory is not itself an error, since the hardware just computes on
stale data: the instruction's result is undefined wherever it depends on such an element
(`Undefined`), and the error (R5) comes when an undefined value reaches HBM. A View
is a tensor plus a NumPy key: basic (ints and slices, read through NumPy views) or
advanced (broadcast int arrays from nl.arange / nl.mgrid, bounds checked at the access,
where the instruction's mask is known, R20). Every instruction returns a fresh Tensor
with a `pending` note; assigning it into a declared tile (`t[...] = nl.exp(x)`) makes the
instruction write there instead (checking the memory spaces the instruction may write),
and `psum[...] += nc_matmul(...)` accumulates (R8).
"""
import numpy as np

from . import _choices as choices
from . import _dtypes as dt
from . import _sim
from ._errors import fail, format_location, kernel_location
from ._index import DynSlice, IndexExpr, as_int


class Buffer:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    @property
    def is_hbm(self):
        return self.name in ("shared_hbm", "private_hbm")

    def __repr__(self):
        return "nl." + self.name


SBUF, PSUM = Buffer("sbuf"), Buffer("psum")
PRIVATE_HBM, SHARED_HBM = Buffer("private_hbm"), Buffer("shared_hbm")
ON_CHIP = (SBUF, PSUM)


class ParDim(int):
    """nl.par_dim(n): marks the partition dimension in an on-chip tensor's shape."""


def _parse_shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    dims, partition_axis = [], 0
    for axis, size in enumerate(shape):
        if isinstance(size, ParDim):
            partition_axis = axis
        dims.append(as_int(size, "a shape dimension"))
    return tuple(dims), partition_axis


def describe(tensor):
    origin = tensor.origin if isinstance(tensor.origin, str) else format_location(tensor.origin)
    return "`%s` (%s %s%s, allocated at %s)" % (
        tensor.name, tensor.buffer.name, dt.name(tensor.dtype), list(tensor.shape), origin)


class Undefined:
    """Which elements of an operand or result hold no defined value (R5), and where the first
    never-written element was read. Instructions pass None when every element is defined."""

    __slots__ = ("mask", "origin")

    def __init__(self, mask, origin):
        self.mask, self.origin = mask, origin

    def map(self, function):
        """The undefined elements of a result computed by `function` from this mask."""
        mask = np.asarray(function(self.mask), dtype=bool)
        return Undefined(mask, self.origin) if mask.any() else None


def undefined_map(undefined, function):
    return None if undefined is None else undefined.map(function)


def undefined_union(shape, *parts):
    """The elementwise union of `parts` (None, or Undefined broadcastable to `shape`)."""
    parts = [part for part in parts if part is not None]
    if not parts:
        return None
    mask = np.zeros(shape, dtype=bool)
    for part in parts:
        mask = mask | np.broadcast_to(part.mask, shape)
    return Undefined(mask, parts[0].origin) if mask.any() else None


def per_partition(undefined, shape):
    """A [P, 1] operand's undefined mask, broadcast along the free axes of `shape`."""
    if undefined is None:
        return None
    column = undefined.mask.reshape((shape[0],) + (1,) * (len(shape) - 1))
    return Undefined(np.broadcast_to(column, shape), undefined.origin)


def check_defined(undefined, opcode, dest):
    """R5: values computed from never-written memory must not reach HBM."""
    if undefined is not None and undefined.mask.any():
        first = tuple(int(i) for i in np.argwhere(undefined.mask)[0])
        fail("R5", "%s writes %s with values computed from %s (first at index %s of the "
             "written region); write that memory first, or mask the instructions that use it"
             % (opcode, describe(dest.tensor), undefined.origin, first))


class Pending:
    """An instruction's result that has not yet been assigned anywhere."""

    __slots__ = ("record", "allowed", "values", "valid", "matmul", "undefined")

    def __init__(self, record, allowed, values, valid, matmul, undefined):
        self.record, self.allowed = record, allowed
        self.values, self.valid, self.matmul = values, valid, matmul
        self.undefined = undefined


class _Accumulated:
    """What `view += x` returns, so that the `__setitem__` Python then calls does nothing."""


ACCUMULATED = _Accumulated()


def _language():
    from . import language
    return language


class TileOps:
    """Operators shared by tensors and views: arithmetic lowers to nl calls; no Python values."""

    __slots__ = ()

    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __add__(self, o): return _language().add(self, o)
    def __radd__(self, o): return _language().add(o, self)
    def __sub__(self, o): return _language().subtract(self, o)
    def __rsub__(self, o): return _language().subtract(o, self)
    def __mul__(self, o): return _language().multiply(self, o)
    def __rmul__(self, o): return _language().multiply(o, self)
    def __truediv__(self, o): return _language().divide(self, o)
    def __rtruediv__(self, o): return _language().divide(o, self)
    def __pow__(self, o): return _language().power(self, o)
    def __neg__(self): return _language().negative(self)
    def __lt__(self, o): return _language().less(self, o)
    def __le__(self, o): return _language().less_equal(self, o)
    def __gt__(self, o): return _language().greater(self, o)
    def __ge__(self, o): return _language().greater_equal(self, o)
    def __eq__(self, o): return _language().equal(self, o)
    def __ne__(self, o): return _language().not_equal(self, o)

    def _no_value(self, *args):
        fail("R21", "a tile has no value at trace time: it cannot be used in Python control flow "
             "or converted to a Python or NumPy value inside a kernel")

    __bool__ = __int__ = __float__ = __index__ = __array__ = __iter__ = _no_value

    def broadcast_to(self, shape):
        return _language().broadcast_to(self, shape=shape)

    @property
    def ndim(self):
        return len(self.shape)


class Tensor(TileOps):
    __slots__ = ("storage", "written", "undefined", "undefined_origin", "dtype", "buffer",
                 "partition_axis", "name", "alloc", "pending", "origin", "buffer_id",
                 "base_shape", "__weakref__")

    @property
    def shape(self):
        return self.storage.shape

    def __getitem__(self, key):
        return View.of(self, key)

    def __setitem__(self, key, value):
        View.of(self, key).assign(value)

    def __iadd__(self, value):
        full_view(self).accumulate(value, "add")
        return self

    def __isub__(self, value):
        full_view(self).accumulate(value, "subtract")
        return self

    def __imul__(self, value):
        full_view(self).accumulate(value, "multiply")
        return self

    def check_alive(self):
        if self.alloc is not None and self.alloc.expired:
            site, iteration = self.alloc.scope
            fail("R23", "%s was allocated inside the loop at line %d (iteration %s) and is used "
                 "after that iteration ended; NKI tensors are scoped to their block: declare it "
                 "before the loop" % (describe(self), site[1], iteration))

    def reshape(self, shape):
        dims, _ = _parse_shape(shape)
        if int(np.prod(dims)) != self.storage.size:
            fail("R11", "cannot reshape %s to %s" % (describe(self), list(dims)))
        view = object.__new__(Tensor)
        view.storage = self.storage.reshape(dims)
        view.written = self.written.reshape(dims)
        view.undefined = self.undefined.reshape(dims)
        view.undefined_origin = self.undefined_origin
        view.dtype, view.buffer, view.partition_axis = self.dtype, self.buffer, 0
        view.name, view.alloc, view.pending, view.origin = self.name, self.alloc, None, self.origin
        view.buffer_id = self.buffer_id
        view.base_shape = getattr(self, "base_shape", None) or tuple(self.shape)
        return view

    def __repr__(self):
        return "Tensor(%s)" % describe(self)


def allocate(shape, dtype, buffer, name="", explicit=True):
    """A new tensor in `buffer`; counts its capacity (checked now when `explicit`)."""
    sim = _sim.active()
    dims, partition_axis = _parse_shape(shape)
    nki_dtype = dt.normalize(dtype)
    if nki_dtype is None:
        fail("R26", "%r is not an NKI dtype" % (dtype,))
    if not isinstance(buffer, Buffer):
        fail("unsupported", "buffer=%r is not one of nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm"
             % (buffer,))
    bytes_per_partition = banks = 0
    if buffer in ON_CHIP:
        if not dims:
            fail("R6", "an on-chip tensor needs a partition dimension")
        if dims[partition_axis] > 128:
            fail("R6", "size of partition dimension %d exceeds architecture limitation of 128"
                 % dims[partition_axis])
        tile_bytes = int(np.prod(dims[partition_axis + 1:])) * nki_dtype.itemsize
        blocks = int(np.prod(dims[:partition_axis]))
        if buffer is PSUM:
            if tile_bytes > choices.PSUM_BANK_BYTES:
                fail("R7", "a PSUM tile holds at most 2 KiB per partition (one bank, 512 fp32); "
                     "%s needs %d bytes" % (list(dims), tile_bytes))
            banks = -(-blocks * tile_bytes // choices.PSUM_BANK_BYTES)
        else:
            bytes_per_partition = blocks * tile_bytes
    elif buffer is SHARED_HBM and sim.loops:
        fail("R2", "shared_hbm (kernel output) tensors can only be created at the kernel's top "
             "level, not inside a loop")
    tensor = object.__new__(Tensor)
    if sim.dry and buffer in ON_CHIP:  # never stored into: read-only zeros, no memory
        tensor.storage = np.broadcast_to(np.zeros((), dtype=dt.storage(nki_dtype)), dims)
        tensor.written = tensor.undefined = np.broadcast_to(False, dims)
    else:
        tensor.storage = np.zeros(dims, dtype=dt.storage(nki_dtype))
        tensor.written = np.zeros(dims, dtype=bool)
        tensor.undefined = np.zeros(dims, dtype=bool)
    tensor.undefined_origin = None
    tensor.dtype, tensor.buffer, tensor.partition_axis = nki_dtype, buffer, partition_axis
    tensor.pending = None
    tensor.origin = kernel_location()
    tensor.name = name or "%s#%d" % (buffer.name, id(tensor) % 100000)
    tensor.alloc = sim.allocate(tensor, buffer.name, bytes_per_partition, banks, explicit)
    tensor.buffer_id = sim.new_buffer()
    return tensor


def from_array(array, name):
    """A kernel argument: an HBM tensor holding a copy of `array`, all written."""
    nki_dtype = dt.normalize(array.dtype)
    if nki_dtype is None:
        fail("R26", "kernel argument `%s` has dtype %s, which is not an NKI dtype (use float32, "
             "bfloat16, float16, fp8 or an integer type)" % (name, array.dtype))
    tensor = object.__new__(Tensor)
    tensor.storage = np.array(array, dtype=dt.storage(nki_dtype), copy=True)
    tensor.written = np.ones(array.shape, dtype=bool)
    tensor.undefined = np.zeros(array.shape, dtype=bool)
    tensor.undefined_origin = None
    tensor.dtype, tensor.buffer, tensor.partition_axis = nki_dtype, SHARED_HBM, 0
    tensor.name, tensor.alloc, tensor.pending, tensor.origin = name, None, None, "kernel argument"
    tensor.buffer_id = _sim.active().new_buffer()
    return tensor


# -- keys ---------------------------------------------------------------------------
def _entries(key, ndim):
    if not isinstance(key, tuple):
        key = (key,)
    for position, item in enumerate(key):
        if item is Ellipsis:
            key = key[:position] + (slice(None),) * (ndim - len(key) + 1) + key[position + 1:]
            break
    if len(key) > ndim:
        fail("R20", "%d indices for a tensor of %d dimensions" % (len(key), ndim))
    return key + (slice(None),) * (ndim - len(key))


def _classify(item):
    """('int', i) | ('slice', start, stop, step) | ('array', values)."""
    if isinstance(item, IndexExpr):
        if item.values.ndim == 0:
            return ("int", int(item.values))
        return ("array", item.values)
    if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
        return ("int", int(item))
    if isinstance(item, slice):
        step = 1 if item.step is None else as_int(item.step, "a slice step")
        if step < 1:
            fail("R17", "slice steps must be positive")
        return ("slice", None if item.start is None else as_int(item.start, "a slice start"),
                None if item.stop is None else as_int(item.stop, "a slice stop"), step)
    if isinstance(item, DynSlice):
        start = as_int(item.start, "nl.ds start")
        return ("slice", start, start + as_int(item.size, "nl.ds size"), 1)
    if isinstance(item, np.ndarray) and np.issubdtype(item.dtype, np.integer):
        return ("array", item)
    fail("R19", "cannot index a tensor with %s (use ints, slices, nl.ds, nl.arange, nl.mgrid)"
         % type(item).__name__)


def resolve(shape, key, partition_axis):
    """(numpy key, view shape, basic?, view partition axis, partition start) for `key`."""
    entries = [_classify(item) for item in _entries(key, len(shape))]
    kinds = {entry[0] for entry in entries}
    if "array" in kinds and "slice" in kinds:
        fail("R18", "basic indexing (slices, nl.ds) and advanced indexing (nl.arange, nl.mgrid) "
             "cannot be mixed in one index tuple")
    if "array" in kinds:
        arrays = tuple(np.asarray(e[1]) for e in entries)
        try:
            view_shape = np.broadcast_shapes(*[a.shape for a in arrays])
        except ValueError:
            fail("R19", "index patterns of shapes %s do not broadcast" % [a.shape for a in arrays])
        start = int(arrays[partition_axis].min()) if arrays[partition_axis].size else 0
        return arrays, tuple(view_shape), False, 0, start
    np_key, view_shape, in_bounds = [], [], True
    view_axis, start = None, 0
    for axis, (entry, size) in enumerate(zip(entries, shape)):
        if entry[0] == "int":
            index = entry[1] + size if entry[1] < 0 else entry[1]
            in_bounds &= 0 <= index < size
            np_key.append(index)
            if axis == partition_axis:
                start = index
            continue
        _, lo, hi, step = entry
        lo = 0 if lo is None else (lo + size if lo < 0 else lo)
        hi = size if hi is None else (hi + size if hi < 0 else hi)
        length = max(0, -(-(hi - lo) // step))
        in_bounds &= length == 0 or (0 <= lo and lo + (length - 1) * step < size)
        if axis == partition_axis:
            view_axis, start = len(view_shape), lo
        np_key.append(slice(lo, lo + length * step, step) if lo >= 0 else (lo, length, step))
        view_shape.append(length)
    if in_bounds:
        return tuple(np_key), tuple(view_shape), True, view_axis, start
    # Out of bounds: keep it as index arrays, checked at the access under the mask.
    return _open_mesh(np_key, len(view_shape)), tuple(view_shape), False, view_axis, start


def _open_mesh(np_key, rank):
    arrays, position = [], 0
    for entry in np_key:
        if isinstance(entry, (int, np.integer)):
            arrays.append(np.asarray(entry))
            continue
        if isinstance(entry, slice):
            values = np.arange(entry.start, entry.stop, entry.step)
        else:
            lo, length, step = entry
            values = lo + step * np.arange(length)
        shape = [1] * rank
        shape[position] = values.size
        arrays.append(values.reshape(shape))
        position += 1
    return tuple(arrays)


def full_view(tensor):
    return View(tensor, tuple(slice(0, n, 1) for n in tensor.shape), tensor.shape, True,
                tensor.partition_axis, 0)


def as_view(x):
    if isinstance(x, View):
        return x
    if isinstance(x, Tensor):
        return full_view(x)
    return None


class View(TileOps):
    __slots__ = ("tensor", "key", "shape", "basic", "partition_axis", "partition_start")

    def __init__(self, tensor, key, shape, basic, partition_axis, partition_start):
        self.tensor, self.key, self.shape, self.basic = tensor, key, shape, basic
        self.partition_axis, self.partition_start = partition_axis, partition_start

    @staticmethod
    def of(tensor, key):
        np_key, shape, basic, axis, start = resolve(tensor.shape, key, tensor.partition_axis)
        return View(tensor, np_key, shape, basic, axis, start)

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def buffer(self):
        return self.tensor.buffer

    def __getitem__(self, key):
        arrays = np.broadcast_arrays(*self._arrays())
        np_key, shape, basic, _, _ = resolve(self.shape, key, 0)
        if not basic:
            for axis, index in enumerate(np_key):
                if index.size and (index.min() < 0 or index.max() >= self.shape[axis]):
                    fail("R20", "index out of range for dimension %d of a view of shape %s"
                         % (axis, list(self.shape)))
        sub = tuple(np.asarray(a)[np_key] for a in arrays)
        start = int(sub[self.tensor.partition_axis].min()) if sub and sub[0].size else 0
        return View(self.tensor, sub, tuple(shape), False, 0, start)

    def __setitem__(self, key, value):
        self[key].assign(value)

    def __iadd__(self, value):
        return self.accumulate(value, "add")

    def __isub__(self, value):
        return self.accumulate(value, "subtract")

    def __imul__(self, value):
        return self.accumulate(value, "multiply")

    def reshape(self, shape):
        if not self.basic or self.shape != self.tensor.shape:
            fail("unsupported", "only whole tensors can be reshaped")
        return self.tensor.reshape(shape)

    # -- access ---------------------------------------------------------------------
    def _arrays(self):
        if self.basic:
            return _open_mesh(self.key, len(self.shape))
        return self.key

    def _as_slices(self):
        """The view's index as basic slices when it is one (each index array an increasing
        arithmetic progression along its own axis: `x[i * 128 + ip, jf]`), else None. Indexing
        with slices reads and writes the same elements as the arrays, without a gather."""
        arrays = self.key
        rank = len(self.shape)
        if len(arrays) != rank or self.tensor.storage.ndim != rank:
            return None
        slices = []
        for axis, index in enumerate(arrays):
            index = np.asarray(index)
            n = self.shape[axis]
            if index.ndim != rank or index.size != n or (n > 1 and index.shape[axis] != n):
                return None
            line = index.reshape(-1)
            first = int(line[0])
            step = int(line[1]) - first if n > 1 else 1
            if step < 1 or (n > 2 and not np.array_equal(np.diff(line), np.full(n - 1, step))):
                return None
            slices.append(slice(first, first + step * (n - 1) + 1, step))
        return tuple(slices)

    def _checked_index(self, valid):
        tensor = self.tensor
        if valid is None:
            slices = self._as_slices()
            if slices is not None:
                for axis, s in enumerate(slices):
                    size = tensor.shape[axis]
                    if s.start < 0 or s.stop - 1 >= size:
                        fail("R20", "out-of-bound access to %s on dimension %d: index range [%d, %d] "
                             "exceeds dimension size %d (use a mask)"
                             % (describe(tensor), axis, s.start, s.stop - 1, size))
                return slices
        arrays = np.broadcast_arrays(*self._arrays())
        clipped = []
        for axis, index in enumerate(arrays):
            size = tensor.shape[axis]
            bad = (index < 0) | (index >= size)
            if valid is not None:
                bad &= valid
            if bad.any():
                live = index if valid is None else index[valid]
                fail("R20", "out-of-bound access to %s on dimension %d: index range [%d, %d] "
                     "exceeds dimension size %d (use a mask)"
                     % (describe(tensor), axis, live.min(), live.max(), size))
            clipped.append(np.clip(index, 0, size - 1))
        return tuple(clipped)

    def read(self, valid=None):
        """(stored values in the storage dtype, Undefined or None) of the view's elements (all,
        or those where `valid`); reading never-written elements is not an error here (R5)."""
        tensor = self.tensor
        tensor.check_alive()
        index = self.key if self.basic else self._checked_index(valid)
        if _sim.current is not None and _sim.current.dry:
            return np.broadcast_to(np.zeros((), dtype=tensor.storage.dtype), self.shape), None
        values = tensor.storage[index]
        unwritten = ~tensor.written[index]
        undefined = unwritten | tensor.undefined[index]
        if valid is not None:
            undefined &= valid
            unwritten &= valid
        if not undefined.any():
            return values, None
        if unwritten.any():
            first = tuple(int(i) for i in np.argwhere(unwritten)[0])
            origin = "never-written elements of %s (first read at %s, view index %s)" % (
                describe(tensor), format_location(kernel_location()), first)
        else:
            origin = tensor.undefined_origin
        return values, Undefined(undefined, origin)

    def read_unwritten_as_zero(self):
        tensor = self.tensor
        tensor.check_alive()
        index = self.key if self.basic else self._checked_index(None)
        if _sim.current is not None and _sim.current.dry:
            return np.broadcast_to(np.float32(0), self.shape), None
        values = tensor.storage[index].astype(np.float32)
        values[~tensor.written[index]] = 0
        undefined = tensor.undefined[index]
        return values, (Undefined(undefined.copy(), tensor.undefined_origin)
                        if undefined.any() else None)

    def write(self, values, valid=None, undefined=None):
        """Store `values` (already in the storage dtype) where `valid` (all when None);
        the elements where `undefined` hold no defined value."""
        tensor = self.tensor
        tensor.check_alive()
        if _sim.current is not None and _sim.current.dry:
            # Dry: only what the rules need (bounds, R20; written HBM elements, R2).
            index = self.key if self.basic and valid is None else self._checked_index(valid)
            if tensor.buffer.is_hbm:
                if valid is not None:
                    index = tuple(i[valid] for i in index)
                tensor.written[index] = True
            return
        values = np.broadcast_to(values, self.shape)
        mask = (np.zeros(self.shape, dtype=bool) if undefined is None
                else np.broadcast_to(undefined.mask, self.shape))
        if undefined is not None:
            tensor.undefined_origin = undefined.origin
        if self.basic and valid is None:
            tensor.storage[self.key] = values
            tensor.written[self.key] = True
            tensor.undefined[self.key] = mask
            return
        index = self._checked_index(valid)
        if valid is not None:
            index = tuple(i[valid] for i in index)
            values = values[valid]
            mask = mask[valid]
        tensor.storage[index] = values
        tensor.written[index] = True
        tensor.undefined[index] = mask

    # -- assignment -----------------------------------------------------------------
    def assign(self, value):
        if value is ACCUMULATED:
            return
        if self.tensor.buffer.is_hbm:
            fail("R3", "HBM tensors are written with nl.store or nisa.dma_copy, not by assignment")
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            record = _sim.active().begin(choices.DEFAULT_MEMSET_ENGINE, "memset")
            record["out"] = operand_record(self)
            self.write(dt.cast(np.float32(value), self.dtype))
            return
        if isinstance(value, Tensor) and value.pending is not None:
            self._absorb(value)
            return
        source = as_view(value)
        if source is None:
            fail("R11", "cannot assign a %s to a tile" % type(value).__name__)
        # Assigning an existing tile is a copy instruction.
        _language().copy_into(self, source)

    def _absorb(self, result):
        pending = result.pending
        opcode = pending.record["op"]
        if self.tensor.buffer not in pending.allowed:
            fail("R3" if pending.record["engine"] == "dma" else "R4",
                 "%s writes %s, not %s" % (opcode, " or ".join(b.name for b in pending.allowed),
                                           self.tensor.buffer.name))
        if pending.matmul and self.tensor.dtype != dt.float32:
            fail("R26", "%s results are fp32 in PSUM; the destination is %s"
                 % (opcode, dt.name(self.tensor.dtype)))
        check_assignable(self.shape, result.shape)
        valid = pending.valid
        if valid is not None:
            valid = np.broadcast_to(valid, self.shape)
        dry = _sim.current is not None and _sim.current.dry
        self.write(pending.values if dry else dt.cast(pending.values, self.tensor.dtype), valid,
                   pending.undefined)
        pending.record["out"] = operand_record(self)
        result.pending = None
        if result.alloc is not None:
            result.alloc.release()

    def accumulate(self, value, op):
        matmul = isinstance(value, Tensor) and value.pending is not None and value.pending.matmul
        if op == "add" and matmul:
            pending = value.pending
            if self.tensor.buffer is not PSUM:
                fail("R8", "`+=` of an nc_matmul result accumulates in PSUM; the destination is "
                     "%s" % self.tensor.buffer.name)
            if self.shape != value.shape:
                fail("R8", "`+=` of an nc_matmul result of shape %s into a PSUM tile of shape %s; "
                     "the shapes must be equal" % (list(value.shape), list(self.shape)))
            if self.tensor.dtype != dt.float32:
                fail("R26", "PSUM accumulation is fp32; the destination is %s"
                     % dt.name(self.tensor.dtype))
            if _sim.current.dry:
                self.read()  # liveness and bounds; nothing to add
            elif choices.PSUM_ACCUMULATE_UNWRITTEN_AS_ZERO:
                current, undefined = self.read_unwritten_as_zero()
            else:
                current, undefined = self.read()
            if not _sim.current.dry:
                self.write(current.astype(np.float32) + pending.values, None,
                           undefined_union(self.shape, undefined, pending.undefined))
            pending.record["out"] = operand_record(self)
            pending.record["accumulate"] = True
            sim = _sim.active()
            sim.accumulated_in_affine |= sim.in_affine_loop()
            value.pending = None
            if value.alloc is not None:
                value.alloc.release()
            return ACCUMULATED
        if matmul:
            fail("R8", "only `+=` accumulates nc_matmul results")
        self.assign(getattr(_language(), op)(self, value))
        return ACCUMULATED


def check_assignable(dest_shape, source_shape):
    try:
        if np.broadcast_shapes(dest_shape, source_shape) == tuple(dest_shape):
            return
    except ValueError:
        pass
    fail("R11", "cannot assign a value of shape %s to a destination of shape %s"
         % (list(source_shape), list(dest_shape)))


def operand_record(view):
    """The trace's operand: shape and dtype, and the region it touches (sim/nki/README.md):
    its allocation `buf`, partitions `part` = [first, end) and, per partition, bytes
    `bytes` = [first, end) of the allocation's free layout (HBM: rows of the first dimension
    and bytes within a row), `contig`, the bytes of its contiguous runs, and `alloc`, the
    bytes per partition its allocation holds on chip."""
    tensor = view.tensor
    partitions, byte_range, contig = region(view)
    return {"shape": list(view.shape), "dtype": dt.name(tensor.dtype),
            "mem": tensor.buffer.name, "partition_start": view.partition_start,
            "buf": tensor.buffer_id, "part": partitions, "bytes": byte_range,
            "contig": contig, "alloc": _allocation_bytes(tensor)}


def _allocation_bytes(tensor):
    """Bytes per partition the allocation holds on chip (PSUM: whole banks); 0 for HBM."""
    alloc = tensor.alloc
    if alloc is None:
        return 0
    return alloc.bytes_per_partition + alloc.banks * choices.PSUM_BANK_BYTES


def _axis_ranges(view):
    """Per tensor axis: (lowest index, highest index, dense?) of the view's elements; dense
    means every index in between is used (a step-1 slice or an index pattern as wide)."""
    ranges = []
    if view.basic:
        for entry in view.key:
            if isinstance(entry, (int, np.integer)):
                ranges.append((int(entry), int(entry), True))
            elif isinstance(entry, slice):
                count = max(0, -(-(entry.stop - entry.start) // entry.step))
                last = entry.start + (count - 1) * entry.step
                ranges.append((entry.start, max(entry.start, last), entry.step == 1 or count <= 1))
            else:  # (negative start, length, step): out of bounds, checked at the access
                lo, count, step = entry
                ranges.append((lo, lo + max(0, count - 1) * step, step == 1))
        return ranges
    for index in view.key:
        index = np.asarray(index)
        if index.size == 0:
            ranges.append((0, 0, True))
            continue
        lo, hi = int(index.min()), int(index.max())
        ranges.append((lo, hi, index.size >= hi - lo + 1))
    return ranges


def _base_region(shape, base, ranges, itemsize):
    """The region of a view of a reshaped HBM tensor, in the shape it was allocated with (so
    that every view of one allocation is a box of the same rows): the rows its flat element
    bounds span, and the bytes within a row (all of a row when it spans several)."""
    first = last = 0
    stride = 1
    contig, contiguous = 1, True
    for a in reversed(range(len(shape))):
        lo, hi, dense = ranges[a]
        first += lo * stride
        last += hi * stride
        if contiguous:
            contig *= (hi - lo + 1) if dense else 1
            contiguous = dense and hi - lo + 1 == shape[a]
        stride *= shape[a]
    width = int(np.prod(base[1:])) if len(base) > 1 else 1
    rows = [first // width, last // width + 1]
    if rows[1] - rows[0] == 1:
        return rows, [(first % width) * itemsize, (last % width + 1) * itemsize], contig * itemsize
    return rows, [0, width * itemsize], contig * itemsize


def region(view):
    """(partitions [first, end), bytes [first, end) within a partition, contiguous run bytes);
    for HBM, rows of the first dimension and bytes within a row."""
    tensor = view.tensor
    shape = tensor.shape
    itemsize = tensor.dtype.itemsize
    ranges = _axis_ranges(view)
    if not shape:
        return [0, 1], [0, itemsize], itemsize
    # HBM: the first dimension plays the partitions' part (rows), bytes are within a row.
    axis = 0 if tensor.buffer.is_hbm else tensor.partition_axis
    axes = [a for a in range(len(shape)) if a != axis]
    partitions = [max(0, ranges[axis][0]), ranges[axis][1] + 1]
    base = getattr(tensor, "base_shape", None)
    if tensor.buffer.is_hbm and base is not None and tuple(base) != tuple(shape):
        return _base_region(shape, base, ranges, itemsize)
    first = last = 0
    stride = 1
    contig, contiguous = 1, True
    for a in reversed(axes):
        lo, hi, dense = ranges[a]
        first += lo * stride
        last += hi * stride
        if contiguous:
            if dense:
                contig *= hi - lo + 1
                contiguous = hi - lo + 1 == shape[a]
            else:
                contiguous = False
        stride *= shape[a]
    return partitions, [first * itemsize, (last + 1) * itemsize], contig * itemsize
