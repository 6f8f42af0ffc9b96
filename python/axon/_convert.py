"""The slow path of a kernel call: arguments that are not C-contiguous float32
arrays become such arrays when that is exact, and raise otherwise. The C++
side calls ``to_float32`` only after its fast path has refused an argument."""

import numpy as np

from .errors import ArgumentError

_FLOAT32_INTEGERS = 2**24  # every integer of at most this magnitude is a float32


def _first_inexact(a, f):
    """Index of the first element of ``a`` that ``f`` (its float32 copy) does
    not represent exactly, or None."""
    if a.dtype.kind == "f":
        differs = ~((f == a) | (np.isnan(f) & np.isnan(a)))
    elif a.dtype.kind == "b":
        return None
    else:
        # Integers: float64 is exact below 2**53; larger ones are compared as
        # Python integers, one by one (there are rarely any).
        big = np.abs(a.astype(np.float64)) >= 2.0**53
        differs = np.zeros(a.shape, dtype=bool)
        small = ~big
        differs[small] = f[small].astype(np.float64) != a[small].astype(np.float64)
        for idx in zip(*np.nonzero(big)):
            differs[idx] = int(f[idx]) != int(a[idx]) if np.isfinite(f[idx]) else True
    hits = np.argwhere(differs)
    return tuple(int(i) for i in hits[0]) if len(hits) else None


def to_float32(value, name, shape):
    """A C-contiguous float32 copy of ``value`` for parameter ``name`` (declared
    ``shape``), or ArgumentError when its values are not exactly float32."""
    try:
        a = np.asarray(value)
    except Exception as e:  # ragged lists and the like
        raise ArgumentError(f"parameter '{name}': cannot be read as an array: {e}") from None
    if a.dtype.kind not in "fiub":
        raise ArgumentError(
            f"parameter '{name}': an array of dtype {a.dtype} is not accepted "
            "(float32, or a real or integer dtype whose values are all exactly float32)")
    f = a.astype(np.float32, order="C")
    if a.dtype != np.float32:
        where = _first_inexact(a, f)
        if where is not None:
            raise ArgumentError(
                f"parameter '{name}': the {a.dtype} array is not exactly float32: element {where} is "
                f"{a[where]!r}, which float32 rounds to {f[where]!r} (convert it with .astype(np.float32) "
                "to accept the rounding)")
    return f
