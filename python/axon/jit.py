"""axon.jit: optimize on the first call for each new set of shapes."""

import functools
import threading

import numpy as np

from . import _axon
from ._source import program_of


class JitFunction:
    """A NumPy-subset function that runs as an Axon kernel. The first call
    with a new combination of input shapes binds the sizes from the shapes
    (the command line's rules: eval::bind_dims) and runs axon.optimize, which
    the persistent kernel cache answers at once when the same request was
    searched before; later calls with those shapes go straight to the kernel."""

    def __init__(self, fn, options):
        self.__axon_function__ = fn
        self._file, self._text, self._entry = program_of(fn)
        self._options = options
        self._kernels = {}
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __call__(self, *arrays):
        key = tuple(np.shape(a) for a in arrays)
        kernel = self._kernels.get(key)
        if kernel is None:
            kernel = self._compile(key)
        return kernel(*arrays)

    def kernel_for(self, *arrays):
        """The kernel that a call with these arrays runs (optimized if needed)."""
        key = tuple(np.shape(a) for a in arrays)
        return self._kernels.get(key) or self._compile(key)

    @property
    def kernels(self):
        """The kernels made so far, by tuple of input shapes."""
        return dict(self._kernels)

    def _compile(self, key):
        from . import optimize
        with self._lock:
            if key not in self._kernels:
                sizes = _axon.bind_sizes(self._file, self._text, self._entry, [list(s) for s in key], {})
                self._kernels[key] = optimize(self.__axon_function__, sizes, **self._options)
            return self._kernels[key]


def jit(fn=None, **options):
    """``@axon.jit`` or ``@axon.jit(budget=10, ...)``: the options are those of
    axon.optimize (dims excepted)."""
    if fn is None:
        return lambda f: JitFunction(f, options)
    return JitFunction(fn, options)
