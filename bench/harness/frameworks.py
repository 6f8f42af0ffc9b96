"""The peer contestants of the benchmark: each bench kernel as NumPy, PyTorch (eager,
torch.compile in its default and its max-autotune mode), JAX and OpenVINO, behind one
interface.

    configure(contestant)            in-process settings; call once, before make()
    environment(contestant)          variables the worker process must be started with
    make(name, contestant, arrays)   a zero-argument callable computing the kernel
    to_numpy(result)                 a callable's result as a float32 NumPy array

`arrays` are the kernel's inputs as float32 NumPy arrays, in parameter order. torch and
jax are imported only inside configure() and make(), so a driver running under a Python
without them can still import this module for environment().

The PyTorch versions below are written by hand, the way an ML engineer would write the
kernel: library ops where their meaning matches the NumPy code exactly (F.layer_norm,
F.rms_norm, F.scaled_dot_product_attention, ...), float32 throughout. A version that
takes `out=` writes its result there; torch_eager passes a buffer allocated once, so
only the temporaries are fresh (and tcmalloc makes those cheap, see environment()).
torch_compile compiles the same function without `out=` and lets Inductor allocate;
torch_max_autotune does so in mode "max-autotune", which also benchmarks Inductor's
own GEMM templates against the library's. openvino converts the same PyTorch function
(ov.convert_model) and compiles it for the CPU in float32, called with zero-copy
inputs and output (ov.Tensor over the NumPy arrays, shared_memory=True).
"""
import importlib.util
import inspect
import itertools
import os
import pathlib

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]
KERNELS = REPO / "bench" / "kernels"
CONTESTANTS = ("numpy", "torch_eager", "torch_compile", "torch_max_autotune", "jax", "openvino")
TORCH_CONTESTANTS = ("torch_eager", "torch_compile", "torch_max_autotune")
TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4"

# Every contestant gets all the cores this process may run on (2 on the bench machine).
THREADS = len(os.sched_getaffinity(0))

# torch.compile mode (AXON_TORCH_COMPILE_MODE overrides it, for re-measuring).
# "max-autotune-no-cudagraphs" measured the same as the default within noise on
# matmul, gated_mlp, lora, rmsnorm_matmul, layernorm_matmul, attention, softmax,
# rmsnorm and silu: on the CPU, Inductor 2.5 autotunes a matmul only between aten's
# and its C++ GEMM template, and offers the template only for constant (frozen)
# weights, so every matmul here "selects from 1 choice", the aten (MKL) one.
TORCH_COMPILE_MODE = os.environ.get("AXON_TORCH_COMPILE_MODE", "default")


def venv_dir():
    """The benchmark virtual environment, as scripts/bench-env.sh creates it."""
    return pathlib.Path(os.environ.get("AXON_BENCH_VENV", REPO / ".bench-venv"))


def kernel_path(name):
    return KERNELS / f"{name}.py"


_fresh_ids = itertools.count()


def load_kernel(path, np_module=None):
    """Loads a kernel file as a new module object (never the cached one). With
    np_module, the module's global `np` is replaced after loading, so its functions,
    helpers included, compute with np_module (jax.numpy) instead of NumPy."""
    path = pathlib.Path(path)
    spec = importlib.util.spec_from_file_location(f"axon_kernel_{path.stem}_{next(_fresh_ids)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if np_module is not None:
        module.np = np_module
    return module


# ---------------------------------------------------------------------------------
# Environment


def environment(contestant):
    """Variables the worker for `contestant` must be started with (they act at process
    start or library load, too early for configure()). Chosen by interleaved timing
    at bench sizes on the bench machine (2-core AVX2 EPYC VM, shared with compile
    jobs; torch 2.5.1 = MKL + GNU OpenMP, jaxlib 0.4.35, the pins of the time), medians in ms, which
    drifted by up to ~1.5x between runs minutes apart:

    - Large fresh outputs. glibc serves each allocation over 32 MiB with a new mmap,
      and the VM page-faults on every 4 KiB page of it.
      torch and jax: LD_PRELOAD=tcmalloc, which keeps freed pages (torch eager silu
      [4096, 4096] 174 -> 47, rmsnorm 391 -> 101; jax silu 143 -> 37, rmsnorm
      138 -> 38, layernorm 44 -> 17).
      numpy: NOT tcmalloc: under it a ufunc with a fresh 64 MiB output is ~10x
      slower (np.exp 86 -> 1045, silu 123 -> 1080; cpu-baselines.md saw the same).
      Instead glibc is told never to mmap and never to trim its heap, so freed
      arrays are reused: rmsnorm went from 1632 page faults per call to none
      (56 -> 36 in one process; between workers the gain ranged from none to
      rmsnorm 56 -> 35, layernorm 80 -> 50, rope 9.7 -> 4.9, and it never lost).
      For jax this lost to tcmalloc (layernorm 17 -> 47).
    - torch: OMP_WAIT_POLICY=PASSIVE. While other processes want the two cores, an
      OpenMP thread spinning at a barrier holds a core the thread it waits for
      needs, and a parallel region can cost a scheduler slice: eager rope (a dozen
      small ops) 48 -> 5-6, rmsnorm 52 -> 30, gated_mlp 68 -> 43, lora 88 -> 55;
      matmul and attention unchanged.
    - jax: XLA_FLAGS=--xla_cpu_use_thunk_runtime=false, the CPU runtime before
      jaxlib 0.4.32 (the JAX changelog offers the flag; jax-ml/jax#26145): softmax
      41 -> 19, matmul 275 -> 211, lora 101 -> 55, attention 55 -> 44, none slower.
      Rechecked with jaxlib 0.10.2 on a 2-core Zen 4 (AVX-512): softmax 8.7 -> 8.0,
      matmul 83 -> 83; the flag is still accepted.
    - torch_max_autotune: as torch_compile. openvino: nothing (its own threads,
      set in the compile configuration).
      JAX_PLATFORMS=cpu skips probing for GPU and TPU plugins.
    - torch_compile: Inductor's cache lives in the venv, so a kernel compiled once
      (by frameworks_check.py, say) loads in seconds; it goes with the venv when
      the pins change.
    """
    threads = str(THREADS)
    env = {"OMP_NUM_THREADS": threads}
    if contestant == "numpy":
        env["OPENBLAS_NUM_THREADS"] = threads
        env["GLIBC_TUNABLES"] = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184"
    if contestant in TORCH_CONTESTANTS:
        env["LD_PRELOAD"] = TCMALLOC
        env["OMP_WAIT_POLICY"] = "PASSIVE"
    if contestant in ("torch_compile", "torch_max_autotune"):
        env["TORCHINDUCTOR_CACHE_DIR"] = str(venv_dir() / "cache" / "torchinductor")
    if contestant == "jax":
        env["LD_PRELOAD"] = TCMALLOC
        env["JAX_PLATFORMS"] = "cpu"
        env["XLA_FLAGS"] = "--xla_cpu_use_thunk_runtime=false"
    return env


def configure(contestant):
    """Applies the in-process settings of `contestant`: every contestant uses THREADS
    threads. NumPy's OpenBLAS and XLA's Eigen pool default to all cores; torch is
    told explicitly, and gradients are off (the callables also run under
    inference_mode). JAX keeps its compiled executables in a persistent cache in the
    venv, like Inductor."""
    if contestant not in CONTESTANTS:
        raise ValueError(f"unknown contestant '{contestant}' (expected one of {', '.join(CONTESTANTS)})")
    if contestant in TORCH_CONTESTANTS or contestant == "openvino":
        import torch

        torch.set_num_threads(THREADS)
        torch.set_grad_enabled(False)
    if contestant in ("torch_compile", "torch_max_autotune"):
        import torch._inductor.config as inductor

        # Both only shorten setup, by ~3 s each: one compile process (a pool's
        # workers each import torch, more than they save on these graphs of one to
        # three kernels), and the vector ISA taken from the CPU flags instead of a
        # probe that loads a test build in a second Python that imports torch.
        inductor.compile_threads = 1
        inductor.cpp.vec_isa_ok = True
    if contestant == "jax":
        import jax

        jax.config.update("jax_compilation_cache_dir", str(venv_dir() / "cache" / "jax"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


# ---------------------------------------------------------------------------------
# The PyTorch versions, one per kernel file, named like it.


def _torch_kernels():
    import torch
    import torch.nn.functional as F

    # F.rms_norm (torch >= 2.4) computes x * rsqrt(mean(x^2) + eps) * g, the same
    # function as the kernels' x / sqrt(...) * g, and ran as fast as that written out.
    def add_rmsnorm(x, r, g):
        return F.rms_norm(x + r, g.shape, g, eps=1e-6)

    def attention(q, k, v):
        # SDPA's default scale is 1/sqrt(D), as in the NumPy code. The leading batch
        # dimension of 1 selects the fused CPU (flash) kernel: 25 ms at bench sizes,
        # against 46 ms for 3-D inputs and 29 ms for softmax(q @ k^T / 8) @ v.
        return F.scaled_dot_product_attention(q[None], k[None], v[None])[0]

    def cumsum(x, out=None):
        return torch.cumsum(x, dim=-1, out=out)

    def gated_mlp(x, w1, w2, out=None):
        return torch.mul(F.silu(x @ w1), x @ w2, out=out)

    def gelu(x):
        return F.gelu(x, approximate="tanh")

    def gqa(q, k, v):
        # The H query heads of a group share one key/value head, so they are folded
        # into the sequence: one attention per group over H*S query rows. At bench
        # sizes 24.5 ms, against 26.5 with k and v expanded to H heads, 29 with the
        # two einsums and a softmax, 47 with SDPA's enable_gqa (a slower path).
        b, h, s, d = q.shape
        o = F.scaled_dot_product_attention(q.reshape(1, b, h * s, d), k[None], v[None])
        return o.view(b, h, s, d)

    def layernorm(x, g, b):
        return F.layer_norm(x, g.shape, g, b, eps=1e-5)

    def layernorm_matmul(x, w, g, b, out=None):
        return torch.matmul(F.layer_norm(x, g.shape, g, b, eps=1e-5), w, out=out)

    def lora(x, w, a, b, out=None):
        y = torch.matmul(x, w, out=out)
        return y.addmm_(x @ a, b)

    def matmul(a, b, out=None):
        return torch.matmul(a, b, out=out)

    def ntrans(h, x, alpha):
        n = x.shape[-1:]
        return F.rms_norm(torch.addcmul(x, alpha, F.rms_norm(h, n, eps=1e-6) + x), n, eps=1e-6)

    def qknorm_gqa(q, k, v, gq, gk):
        return gqa(F.rms_norm(q, gq.shape, gq, eps=1e-6), F.rms_norm(k, gk.shape, gk, eps=1e-6), v)

    def rmsnorm(x, g):
        return F.rms_norm(x, g.shape, g, eps=1e-6)

    def rmsnorm_matmul(x, w, g, out=None):
        return torch.matmul(F.rms_norm(x, g.shape, g, eps=1e-6), w, out=out)

    def rope(x, cos, sin, out=None):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return torch.add(x * cos, rotated * sin, out=out)

    def silu(x):
        return F.silu(x)

    def softmax(x, out=None):
        return torch.softmax(x, dim=-1, out=out)

    def softmax_matmul(s, v, out=None):
        return torch.matmul(torch.softmax(s, dim=-1), v, out=out)

    def transpose(x, out=None):
        if out is None:
            return x.t().contiguous()
        return out.copy_(x.t())

    def transpose_matmul(a, b, out=None):
        return torch.matmul(a.t(), b, out=out)

    return {fn.__name__: fn for fn in (
        add_rmsnorm, attention, cumsum, gated_mlp, gelu, gqa, layernorm, layernorm_matmul, lora, matmul,
        ntrans, qknorm_gqa, rmsnorm, rmsnorm_matmul, rope, silu, softmax, softmax_matmul, transpose,
        transpose_matmul)}


def torch_kernel(name):
    kernels = _torch_kernels()
    if name not in kernels:
        raise ValueError(f"no PyTorch version of kernel '{name}' in bench/harness/frameworks.py")
    return kernels[name]


# ---------------------------------------------------------------------------------
# Callables


def make(name, contestant, arrays, path=None):
    """A zero-argument callable computing kernel `name` (bench/kernels/<name>.py, or
    `path`) on `arrays` as `contestant`. The first call of a torch_compile or jax
    callable compiles; the caller warms up before timing."""
    path = pathlib.Path(path) if path else kernel_path(name)
    if contestant == "numpy":
        return _make_numpy(name, path, arrays)
    if contestant == "torch_eager":
        return _make_torch(name, arrays, compiled=False)
    if contestant == "torch_compile":
        return _make_torch(name, arrays, compiled=True)
    if contestant == "torch_max_autotune":
        return _make_torch(name, arrays, compiled=True, mode="max-autotune")
    if contestant == "openvino":
        return _make_openvino(name, arrays)
    if contestant == "jax":
        return _make_jax(name, path, arrays)
    raise ValueError(f"unknown contestant '{contestant}' (expected one of {', '.join(CONTESTANTS)})")


def _make_numpy(name, path, arrays):
    fn = getattr(load_kernel(path), name)
    # The kernels' meaning is a row-major result; ascontiguousarray is free when the
    # result already is one, and keeps `x.T` (a view) from timing as zero work.
    return lambda: np.ascontiguousarray(fn(*arrays))


def _make_torch(name, arrays, compiled, mode=None):
    import torch

    fn = torch_kernel(name)
    with torch.inference_mode():
        inputs = [torch.from_numpy(a) for a in arrays]
        kwargs = {}
        if compiled:
            if mode is None and TORCH_COMPILE_MODE != "default":
                mode = TORCH_COMPILE_MODE
            fn = torch.compile(fn, mode=mode, dynamic=False)
        elif "out" in inspect.signature(fn).parameters:
            kwargs["out"] = torch.empty_like(fn(*inputs))

    def call():
        with torch.inference_mode():
            return fn(*inputs, **kwargs)

    return call


def _make_openvino(name, arrays):
    """The PyTorch version of the kernel, converted by OpenVINO's PyTorch front end and
    compiled for the CPU: float32 inference precision (OpenVINO otherwise runs bf16
    where the CPU has it), THREADS threads, the latency hint (one request at a time).
    Inputs and the output are ov.Tensors over NumPy arrays (shared_memory=True), set
    on the request once, so a call is request.infer() and nothing is copied."""
    import openvino as ov
    import openvino.properties as props
    import openvino.properties.hint as hints
    import torch

    fn = torch_kernel(name)

    class Kernel(torch.nn.Module):
        def forward(self, *inputs):
            return fn(*inputs)

    with torch.inference_mode():
        example = tuple(torch.from_numpy(a) for a in arrays)
        model = ov.convert_model(Kernel(), example_input=example, input=[list(a.shape) for a in arrays])
    config = {hints.inference_precision: ov.Type.f32, props.inference_num_threads: THREADS,
              hints.performance_mode: hints.PerformanceMode.LATENCY}
    compiled = ov.Core().compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    for i, a in enumerate(arrays):
        request.set_input_tensor(i, ov.Tensor(np.ascontiguousarray(a), shared_memory=True))
    out = np.empty(tuple(compiled.output(0).get_shape()), dtype=np.float32)
    request.set_output_tensor(0, ov.Tensor(out, shared_memory=True))

    def call():
        request.infer()
        return out

    return call


def _make_jax(name, path, arrays):
    import jax
    import jax.numpy as jnp

    fn = jax.jit(getattr(load_kernel(path, np_module=jnp), name))
    inputs = [jax.device_put(a) for a in arrays]
    return lambda: fn(*inputs).block_until_ready()


def describe(contestant):
    """The versions and settings a report states for `contestant` (imports its framework)."""
    if contestant == "numpy":
        return {"numpy": np.__version__}
    if contestant in TORCH_CONTESTANTS:
        import torch

        mode = {"torch_compile": TORCH_COMPILE_MODE, "torch_max_autotune": "max-autotune"}.get(contestant)
        return {"torch": torch.__version__, **({"mode": mode} if mode else {})}
    if contestant == "jax":
        import jax
        import jaxlib

        return {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    if contestant == "openvino":
        import openvino as ov

        return {"openvino": ov.get_version(), "precision": "f32", "threads": THREADS}
    raise ValueError(f"unknown contestant '{contestant}'")


def to_numpy(result):
    """A result of any contestant (NumPy array, torch tensor, jax array) as a new
    C-contiguous float32 NumPy array; all three implement __array__."""
    return np.array(result, dtype=np.float32, order="C", copy=True)
