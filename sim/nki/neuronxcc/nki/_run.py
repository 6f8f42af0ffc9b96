"""Running a kernel: arguments in, checked outputs out, and the affine_range reorder check.

`run` executes the kernel once forward (R2: returned outputs are HBM tensors, every element
written). Then, if the kernel used nl.affine_range, it runs it again with every
affine_range reversed (R22); when outputs differ (or the reversed run breaks a rule), it
reverses one loop at a time to name the loop whose iterations depend on each other.
"""
import inspect
import json

import ml_dtypes
import numpy as np

from . import _choices as choices
from . import _sim
from ._errors import NkiSimError, fail
from ._tensor import Tensor, describe, from_array


class RunResult:
    def __init__(self, value, outputs, sim):
        self.value = value          # what the kernel call returns: an array, a tuple, or None
        self.outputs = outputs      # the output arrays, in order
        self.sim = sim


def _arguments(fn, args, kwargs):
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    converted = []
    for position, arg in enumerate(args):
        name = names[position] if position < len(names) else "arg%d" % position
        converted.append(from_array(arg, name) if isinstance(arg, np.ndarray) else arg)
    converted_kwargs = {k: from_array(v, k) if isinstance(v, np.ndarray) else v
                        for k, v in kwargs.items()}
    return converted, converted_kwargs


def _definition(fn):
    code = getattr(fn, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code else ("<kernel>", 0)


def _outputs(returned, fn):
    if returned is None:
        return None, []
    items = returned if isinstance(returned, (tuple, list)) else (returned,)
    arrays = []
    for item in items:
        if not isinstance(item, Tensor) or not item.buffer.is_hbm:
            fail("R2", "the kernel returns %s; kernel outputs are HBM tensors allocated with "
                 "buffer=nl.shared_hbm" % (describe(item) if isinstance(item, Tensor)
                                            else type(item).__name__), _definition(fn))
        if not item.written.all():
            first = tuple(int(i) for i in np.argwhere(~item.written)[0])
            fail("R2", "output %s has %d elements never written (first at index %s)"
                 % (describe(item), int((~item.written).sum()), first),
                 item.origin if isinstance(item.origin, tuple) else _definition(fn))
        arrays.append(item.storage.copy())
    value = tuple(arrays) if isinstance(returned, (tuple, list)) else arrays[0]
    return value, arrays


def execute(fn, args, kwargs, reverse_sites=None, dry=False):
    if _sim.current is not None:
        raise RuntimeError("a kernel run is already in progress")
    sim = _sim.Simulation(reverse_sites, dry)
    _sim.current = sim
    try:
        converted, converted_kwargs = _arguments(fn, args, kwargs)
        with np.errstate(all="ignore"):
            returned = fn(*converted, **converted_kwargs)
            value, outputs = _outputs(returned, fn)
    finally:
        _sim.current = None
    return RunResult(value, outputs, sim)


def reorder_tolerance(output):
    """How far a reversed run's `output` may differ from the forward run's when the kernel
    accumulated into PSUM inside an affine_range (the rationale is in _choices.py)."""
    magnitude = np.abs(output.astype(np.float64))
    finite = magnitude[np.isfinite(magnitude)]
    scale = float(finite.max()) if finite.size else 0.0
    rtol = choices.REORDER_RTOL
    if np.issubdtype(output.dtype, np.floating) or output.dtype.kind == "V":
        rtol = max(rtol, float(ml_dtypes.finfo(output.dtype).eps))
    return rtol * scale + choices.REORDER_ATOL


def _same(expected, actual, tolerant):
    if len(expected) != len(actual):
        return False
    for a, b in zip(expected, actual):
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        if tolerant:
            same_special = (np.isnan(a64) & np.isnan(b64)) | (a64 == b64)
            close = np.abs(a64 - b64) <= reorder_tolerance(a)
            if not (same_special | close).all():
                return False
        elif not np.array_equal(a64, b64, equal_nan=True):
            return False
    return True


def _reversed_differs(fn, args, kwargs, forward, sites):
    try:
        run = execute(fn, args, kwargs, reverse_sites=sites)
    except NkiSimError as error:
        return error
    if not _same(forward.outputs, run.outputs, forward.sim.accumulated_in_affine):
        return True
    return None


def check_reorder(fn, args, kwargs, forward):
    problem = _reversed_differs(fn, args, kwargs, forward, "all")
    if problem is None:
        return
    culprit = _definition(fn)
    for site in forward.sim.affine_sites:
        single = _reversed_differs(fn, args, kwargs, forward, {site})
        if single is not None:
            culprit, problem = site, single
            break
    detail = ("; reversed, the run fails with: %s" % problem.format()
              if isinstance(problem, NkiSimError) else "")
    fail("R22", "iterations of this nl.affine_range depend on each other: running them in "
         "reverse order changes the kernel's outputs%s. Use nl.sequential_range for a "
         "loop-carried dependence" % detail, culprit)


last = None


def run(fn, args, kwargs, reorder_check=True, dry=False):
    """Runs the kernel; `dry` records the trace without computing values (see _sim.py),
    and then there is no reorder run."""
    global last
    forward = execute(fn, args, kwargs, dry=dry)
    last = forward
    if reorder_check and not dry and forward.sim.affine_sites:
        check_reorder(fn, args, kwargs, forward)
    return forward


def write_trace(sim, path):
    with open(path, "w") as out:
        for record in sim.records:
            out.write(json.dumps(record, separators=(",", ":")))
            out.write("\n")
