"""Index expressions: nl.arange axes, loop indices, their affine combinations, and masks.

The simulator runs kernels concretely, so an expression carries its values (an int array
shaped the way the kernel oriented it: `nl.arange(n)[:, None]` is (n, 1), a loop index
is 0-d). What keeps kernels honest is what the objects refuse: a loop index or a mask
cannot steer Python control flow (R21), and a comparison yields a Mask, usable only as
`mask=`.
"""
import operator

import numpy as np

from ._errors import fail


def _values(other, what):
    if isinstance(other, IndexExpr):
        return other.values
    if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
        return other
    fail("R19", "index expressions combine ints, loop indices and nl.arange axes; got %s in %s"
         % (type(other).__name__, what))


class IndexExpr:
    """An integer index pattern (affine in loop indices and nl.arange axes)."""

    __slots__ = ("values", "from_loop")
    __array_ufunc__ = None
    __hash__ = object.__hash__

    def __init__(self, values, from_loop=False):
        self.values = np.asarray(values, dtype=np.int64)
        self.from_loop = from_loop

    def _binary(self, other, op, name):
        return IndexExpr(op(self.values, _values(other, name)), self.from_loop)

    def _reflected(self, other, op, name):
        return IndexExpr(op(_values(other, name), self.values), self.from_loop)

    def __add__(self, o): return self._binary(o, operator.add, "+")
    def __radd__(self, o): return self._reflected(o, operator.add, "+")
    def __sub__(self, o): return self._binary(o, operator.sub, "-")
    def __rsub__(self, o): return self._reflected(o, operator.sub, "-")
    def __mul__(self, o): return self._binary(o, operator.mul, "*")
    def __rmul__(self, o): return self._reflected(o, operator.mul, "*")
    def __floordiv__(self, o): return self._binary(o, operator.floordiv, "//")
    def __mod__(self, o): return self._binary(o, operator.mod, "%")
    def __neg__(self): return IndexExpr(-self.values, self.from_loop)
    def __pos__(self): return self

    def _compare(self, other, op):
        return Mask(op(self.values, _values(other, "a comparison")))

    def __lt__(self, o): return self._compare(o, operator.lt)
    def __le__(self, o): return self._compare(o, operator.le)
    def __gt__(self, o): return self._compare(o, operator.gt)
    def __ge__(self, o): return self._compare(o, operator.ge)
    def __eq__(self, o): return self._compare(o, operator.eq)
    def __ne__(self, o): return self._compare(o, operator.ne)

    def __getitem__(self, key):
        return IndexExpr(self.values[key], self.from_loop)

    @property
    def shape(self):
        return self.values.shape

    def scalar(self):
        """The value of a 0-d expression (a loop index, possibly scaled and offset)."""
        if self.values.size != 1:
            fail("R18", "an nl.arange pattern of shape %s used where a single index is expected "
                 "(inside a slice or nl.ds)" % (self.values.shape,))
        return int(self.values.reshape(()))

    def _no_python(self, *args):
        fail("R21", "a loop index or nl.arange pattern cannot be used as a Python value "
             "(control flow, int(), range(), list indexing): the NKI tracer has no value for it "
             "at compile time")

    __bool__ = __int__ = __index__ = __float__ = _no_python

    def __iter__(self):
        self._no_python()

    def __repr__(self):
        return "IndexExpr(%r)" % (self.values,)


class Mask:
    """A compile-time predicate over index expressions, accepted only as `mask=`."""

    __slots__ = ("values",)
    __array_ufunc__ = None

    def __init__(self, values):
        self.values = np.asarray(values, dtype=bool)

    def __and__(self, o): return Mask(self.values & _mask_values(o))
    def __rand__(self, o): return Mask(_mask_values(o) & self.values)
    def __or__(self, o): return Mask(self.values | _mask_values(o))
    def __ror__(self, o): return Mask(_mask_values(o) | self.values)
    def __invert__(self): return Mask(~self.values)

    def __bool__(self):
        fail("R21", "a comparison of loop indices or nl.arange patterns is a mask, not a Python "
             "bool: it cannot steer Python control flow (use mask= on the instruction)")


def _mask_values(other):
    if isinstance(other, Mask):
        return other.values
    fail("R19", "masks combine comparisons of index expressions with & and |; got %s"
         % type(other).__name__)


class DynSlice:
    """nl.ds(start, size): `size` elements from `start` (start may be a loop expression)."""

    __slots__ = ("start", "size")

    def __init__(self, start, size):
        self.start = start
        self.size = size


def as_int(value, what):
    """A Python int from an int or a 0-d index expression (inside slices and nl.ds)."""
    if isinstance(value, IndexExpr):
        return value.scalar()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    fail("R19", "%s must be an int or a loop expression, got %s" % (what, type(value).__name__))


class Grid(tuple):
    """nl.mgrid[...]: one IndexExpr per axis, also reachable as .p (partition), .x, .y, .z."""

    @property
    def p(self): return self[0]
    @property
    def x(self): return self[1]
    @property
    def y(self): return self[2]
    @property
    def z(self): return self[3]


class _MGrid:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        axes = []
        for position, item in enumerate(key):
            if not isinstance(item, slice):
                fail("R19", "nl.mgrid takes slices, e.g. nl.mgrid[0:128, 0:512]")
            start = 0 if item.start is None else as_int(item.start, "an mgrid bound")
            values = np.arange(start, as_int(item.stop, "an mgrid bound"),
                               1 if item.step is None else as_int(item.step, "an mgrid step"))
            shape = [1] * len(key)
            shape[position] = values.size
            axes.append(IndexExpr(values.reshape(shape)))
        return Grid(axes)


mgrid = _MGrid()


def arange(*args):
    return IndexExpr(np.arange(*[as_int(a, "an nl.arange bound") for a in args]))


def ds(start, size):
    return DynSlice(start, size)
