"""Axon: a synthesizing superoptimizer for tensor programs written in NumPy.

    import axon
    k = axon.optimize(rmsnorm, dims={"M": 4096, "N": 4096})   # a function or a path
    y = k(x, g)                                                # NumPy arrays in and out
    axon.verify(f, g).proved
    fast = axon.jit(rmsnorm)                                   # per-shape dispatch via the cache

The work is done in C++ (the extension module axon._axon), by the same code
as the `axon` command.
"""

import os
import shutil
import tempfile

from . import _axon
from ._convert import to_float32 as _to_float32
from ._source import program_of as _program_of
from .errors import ArgumentError, Error, InternalError, LoadError, NoValidKernelError, ProgramError
from .jit import JitFunction, jit
from .kernel import Kernel, load
from .verify import Counterexample, Verdict, verify

__all__ = ["optimize", "load", "verify", "jit", "Kernel", "Verdict", "Counterexample", "JitFunction", "Error",
           "ProgramError", "NoValidKernelError", "InternalError", "ArgumentError", "LoadError"]

HW_DIR = os.path.join(os.path.dirname(__file__), "hw")  # the hardware descriptions, installed with the package

_axon.set_converter(_to_float32)
_axon.set_hw_dir(HW_DIR)


def optimize(fn_or_path, dims=None, *, target="cpu", budget=90, entry=None, cache=True, **options):
    """Searches the fastest valid kernel for a program and returns it loaded.

    fn_or_path: a function written in the NumPy subset (its file is read; the
    kernel is the function) or a path to a program (the kernel is ``entry``,
    else the last def). dims: a dict of sizes ({"M": 64}), the name of a
    SIZES preset ("test"), or None when the program has no sizes. target:
    "cpu" or a hardware description (.json). budget: seconds for the search.
    cache: True for the default kernel cache ($XDG_CACHE_HOME/axon), a path
    for another, False for none. Further options, as `axon optimize` spells
    them: max_candidates, variants, seed, jobs, time_limit, memory_limit_mib,
    cpu_limit, max_memory (bytes), no_algebra, no_fusion, default_tiling,
    no_tuning, time_numpy; the defaults are the command's.
    """
    file, text, entry = _program_of(fn_or_path, entry)
    preset, sizes = "", {}
    if isinstance(dims, str):
        preset = dims
    elif dims is not None:
        sizes = {str(k): _size(k, v) for k, v in dict(dims).items()}
    if cache is True:
        cache_arg = ""
    elif cache is False or cache is None:
        cache_arg = None
    else:
        cache_arg = os.fspath(cache)
    options = dict(options, budget=float(budget))
    function = getattr(fn_or_path, "__axon_function__", fn_or_path)
    function = function if callable(function) else None
    # The output folder is read into the Kernel and removed; after a search
    # without a valid kernel it stays, for the failed report the error names.
    scratch = tempfile.mkdtemp(prefix="axon-optimize-")
    keep = False
    try:
        out = os.path.join(scratch, "out")
        summary = _axon.optimize(file, text, entry, preset, sizes, os.fspath(target), options, cache_arg, out)
        return Kernel(summary["out"], function=function, numpy_seconds=summary["numpy_seconds"],
                      from_cache=summary["from_cache"])
    except NoValidKernelError:
        keep = True
        raise
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)


def _size(name, value):
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise ArgumentError(f"size {name} must be an integer, not {value!r}")
    return int(value)
