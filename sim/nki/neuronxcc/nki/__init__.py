"""neuronxcc.nki as simulated by Axon: NKI Beta 1 kernels run unchanged on NumPy.

Not the AWS Neuron compiler. `AXON_SHIM` tells a kernel (or a test) which one it got.
Calling a @nki.jit / @nki.baremetal / @nki.benchmark kernel with NumPy arrays, or
nki.simulate_kernel(kernel, *arrays), runs it in the simulator and returns its outputs as
NumPy arrays (a tuple when the kernel returns several). Rule violations raise NkiSimError.
nki.benchmark only simulates: its benchmark_result reports NaN latencies (no timing model).
"""
import functools
import os

from . import isa, language, typing  # noqa: F401 (the API)
from . import _run, _sim
from ._errors import NkiSimError  # noqa: F401
from ._errors import fail

AXON_SHIM = True

# Run every kernel a second time with affine_range loops reversed (R22).
reorder_check = True

# Dry runs: control flow, shapes, indexing and capacity rules and the trace, but no values
# (outputs are undefined, R5/R15/R22 are off); for tracing bench-size kernels in seconds.
# Also set by the environment variable AXON_NKI_DRY=1.
dry_run = os.environ.get("AXON_NKI_DRY", "") not in ("", "0")


class _Latency:
    def get_latency_percentile(self, percentile):
        return float("nan")


class _BenchmarkResult:
    nc_latency = _Latency()


class Kernel:
    """A decorated kernel: calling it with NumPy arrays simulates it."""

    def __init__(self, func, mode="auto", **options):
        functools.update_wrapper(self, func)
        self.func = func
        self.mode = mode
        self.options = options
        self.benchmark_result = _BenchmarkResult()

    def __call__(self, *args, **kwargs):
        if _sim.current is not None:  # a kernel calling another kernel: inline it
            return self.func(*args, **kwargs)
        return _run.run(self.func, args, kwargs, reorder_check=reorder_check,
                        dry=dry_run).value

    def __getitem__(self, grid):
        fail("unsupported", "SPMD launch grids (kernel[grid](...)) are not simulated")


def _decorator(func=None, mode="auto", **options):
    if func is None:
        return lambda f: Kernel(f, mode, **options)
    return Kernel(func, mode, **options)


def jit(func=None, mode="auto", **kwargs):
    return _decorator(func, mode, **kwargs)


def baremetal(kernel=None, **kwargs):
    return _decorator(kernel, "baremetal", **kwargs)


def benchmark(kernel=None, **kwargs):
    return _decorator(kernel, "benchmark", **kwargs)


def profile(func=None, **kwargs):
    return _decorator(func, "profile", **kwargs)


def simulate_kernel(kernel, *args, **kwargs):
    func = kernel.func if isinstance(kernel, Kernel) else kernel
    return _run.run(func, args, kwargs, reorder_check=reorder_check, dry=dry_run).value
