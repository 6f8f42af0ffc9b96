"""Conformance: hand-written NKI Beta 1 kernels (bench/nki/) run under the NumPy simulator
(sim/nki/) against float64 NumPy references.

The kernels are written for the real `neuronxcc.nki` from its documentation, so a failure here
is either a kernel bug or a simulator discrepancy; decide which from the Beta 1 docs. Each row
is (kernel file, kernel, sizes, dtype); a failure prints the row, the worst element, the
expected and the actual value there.

Tolerances: f32 kernels must match to 1e-4 relative to the output's largest magnitude (f32 math,
f32 PSUM accumulation); bf16 cases to 2e-2 (bf16 keeps 8 significant bits), with the reference
computed from the bf16-rounded inputs.
"""

import importlib.util
import os
import sys

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH_NKI = os.path.join(REPO, "bench", "nki")

# tests/sim/conftest.py puts sim/nki on sys.path.
nki = pytest.importorskip("neuronxcc.nki", reason="the NKI simulator (sim/nki) is not available")
import neuronxcc.nki.language as nl  # noqa: E402

F32_TOL = 1e-4
BF16_TOL = 2e-2


def load_kernel(family, name):
    """The kernel `name` of bench/nki/<family>.py."""
    path = os.path.join(BENCH_NKI, family + ".py")
    module_name = "axon_bench_nki_" + family
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return getattr(module, name)


# ---------------------------------------------------------------------------------------------
# float64 references

def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rms_normalize(x, g, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


def softmax_ref(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm_ref(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


# Each family: kernel file, the input shapes from the sizes, the reference.
FAMILIES = {
    "matmul_tutorial": (
        "matmul",
        lambda K, M, N: [(K, M), (K, N)],
        lambda lhsT, rhs: lhsT.T @ rhs,
    ),
    "transpose_matmul": (
        "transpose_matmul",
        lambda K, M, N: [(K, M), (K, N)],
        lambda a, b: a.T @ b,
    ),
    "matmul": (
        "transpose_matmul",
        lambda M, K, N: [(M, K), (K, N)],
        lambda a, b: a @ b,
    ),
    "transpose": ("transpose", lambda M, N: [(M, N)], lambda x: x.T),
    "rmsnorm": ("rmsnorm", lambda M, N: [(M, N), (N,)], lambda x, g: rms_normalize(x, g, 1e-6)),
    "layernorm": ("layernorm", lambda M, N: [(M, N), (N,), (N,)], layernorm_ref),
    "softmax": ("softmax", lambda M, N: [(M, N)], softmax_ref),
    "cumsum": ("cumsum", lambda M, N: [(M, N)], lambda x: np.cumsum(x, axis=-1)),
    "rope": (
        "rope",
        lambda H, S, D: [(H, S, D), (S, D), (S, D)],
        lambda x, cos, sin: x * cos + rotate_half(x) * sin,
    ),
    "rmsnorm_matmul": (
        "rmsnorm_matmul",
        lambda M, K, N: [(M, K), (K, N), (K,)],
        lambda x, w, g: rms_normalize(x, g, 1e-6) @ w,
    ),
}

# (family, kernel, sizes, dtype). Sizes cover full tiles, several tiles and, where the kernel
# supports them, partial tiles (33, 65, 130, ...). The matmul tutorial kernels support only
# multiples of their tiles (K, M: 128; N: 512; blocks of 2 x 2 tiles for matmul_block_free and
# 2 x 2 x 2 for matmul_fully_optimized).
CASES = [
    ("matmul_tutorial", "matmul_basic", dict(K=128, M=64, N=512), "f32"),
    ("matmul_tutorial", "matmul_basic", dict(K=32, M=128, N=100), "f32"),
    ("matmul_tutorial", "matmul_tiled", dict(K=128, M=128, N=512), "f32"),
    ("matmul_tutorial", "matmul_tiled", dict(K=384, M=256, N=1024), "f32"),
    ("matmul_tutorial", "matmul_tiled", dict(K=256, M=128, N=512), "bf16"),
    ("matmul_tutorial", "matmul_hoist_load", dict(K=128, M=128, N=512), "f32"),
    ("matmul_tutorial", "matmul_hoist_load", dict(K=384, M=256, N=1024), "f32"),
    ("matmul_tutorial", "matmul_block_free", dict(K=256, M=256, N=1024), "f32"),
    ("matmul_tutorial", "matmul_block_free", dict(K=128, M=512, N=2048), "f32"),
    ("matmul_tutorial", "matmul_fully_optimized", dict(K=256, M=256, N=1024), "f32"),
    ("matmul_tutorial", "matmul_fully_optimized", dict(K=512, M=512, N=2048), "f32"),
    ("matmul_tutorial", "matmul_fully_optimized", dict(K=512, M=256, N=1024), "bf16"),
    ("transpose_matmul", "transpose_matmul", dict(K=48, M=33, N=65), "f32"),
    ("transpose_matmul", "transpose_matmul", dict(K=256, M=128, N=512), "f32"),
    ("transpose_matmul", "transpose_matmul", dict(K=300, M=200, N=700), "f32"),
    ("transpose_matmul", "transpose_matmul", dict(K=200, M=130, N=600), "bf16"),
    ("matmul", "matmul", dict(M=33, K=48, N=65), "f32"),
    ("matmul", "matmul", dict(M=256, K=256, N=512), "f32"),
    ("matmul", "matmul", dict(M=200, K=300, N=600), "f32"),
    ("transpose", "transpose", dict(M=33, N=65), "f32"),
    ("transpose", "transpose", dict(M=128, N=256), "f32"),
    ("transpose", "transpose", dict(M=300, N=200), "f32"),
    ("rmsnorm", "rmsnorm", dict(M=33, N=65), "f32"),
    ("rmsnorm", "rmsnorm", dict(M=128, N=512), "f32"),
    ("rmsnorm", "rmsnorm", dict(M=300, N=1000), "f32"),
    ("rmsnorm", "rmsnorm", dict(M=200, N=256), "bf16"),
    ("rmsnorm", "rmsnorm_isa", dict(M=33, N=65), "f32"),
    ("rmsnorm", "rmsnorm_isa", dict(M=300, N=1000), "f32"),
    ("rmsnorm", "rmsnorm_isa", dict(M=200, N=256), "bf16"),
    ("layernorm", "layernorm_v1", dict(M=33, N=65), "f32"),
    ("layernorm", "layernorm_v1", dict(M=300, N=1000), "f32"),
    ("layernorm", "layernorm_v2", dict(M=33, N=65), "f32"),
    ("layernorm", "layernorm_v2", dict(M=128, N=1024), "f32"),
    ("layernorm", "layernorm_v2", dict(M=300, N=1000), "f32"),
    ("layernorm", "layernorm_v2", dict(M=200, N=700), "bf16"),
    ("softmax", "softmax", dict(M=33, N=65), "f32"),
    ("softmax", "softmax", dict(M=300, N=1000), "f32"),
    ("softmax", "softmax_isa", dict(M=33, N=65), "f32"),
    ("softmax", "softmax_isa", dict(M=128, N=2048), "f32"),
    ("softmax", "softmax_isa", dict(M=300, N=1000), "f32"),
    ("softmax", "softmax_isa", dict(M=130, N=512), "bf16"),
    ("cumsum", "cumsum", dict(M=33, N=65), "f32"),
    ("cumsum", "cumsum", dict(M=128, N=4096), "f32"),
    ("cumsum", "cumsum", dict(M=130, N=4500), "f32"),
    ("rope", "rope", dict(H=3, S=33, D=18), "f32"),
    ("rope", "rope", dict(H=2, S=300, D=64), "f32"),
    ("rope", "rope", dict(H=4, S=128, D=128), "f32"),
    ("rope", "rope", dict(H=2, S=130, D=64), "bf16"),
    ("rmsnorm_matmul", "rmsnorm_matmul", dict(M=5, K=130, N=65), "f32"),
    ("rmsnorm_matmul", "rmsnorm_matmul", dict(M=128, K=256, N=512), "f32"),
    ("rmsnorm_matmul", "rmsnorm_matmul", dict(M=200, K=300, N=600), "f32"),
]


def case_id(case):
    family, kernel, sizes, dtype = case
    return f"{kernel}-" + "x".join(f"{k}{v}" for k, v in sizes.items()) + f"-{dtype}"


def numpy_dtype(name):
    if name == "f32":
        return np.dtype(np.float32)
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="bf16 cases need ml_dtypes")
    return np.dtype(ml_dtypes.bfloat16)


def make_inputs(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32).astype(dtype) for shape in shapes]


def check_close(actual, expected, tol, what):
    actual = np.asarray(actual).astype(np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    assert np.all(np.isfinite(actual)), f"{what}: non-finite values in the output"
    scale = max(1.0, float(np.max(np.abs(expected))))
    err = np.abs(actual - expected)
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err[worst] <= tol * scale, (
        f"{what}: max error {err[worst]:.3g} > {tol:g} * {scale:.3g} at {worst}: "
        f"expected {expected[worst]!r}, actual {actual[worst]!r}")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_kernel_matches_numpy(case):
    family, kernel_name, sizes, dtype_name = case
    file_name, input_shapes, reference = FAMILIES[family]
    dtype = numpy_dtype(dtype_name)
    kernel = load_kernel(file_name, kernel_name)
    inputs = make_inputs(input_shapes(**sizes), dtype, seed=len(CASES) + sum(sizes.values()))

    actual = nki.simulate_kernel(kernel, *inputs)

    expected = reference(*[x.astype(np.float64) for x in inputs])
    assert np.asarray(actual).dtype == dtype, f"output dtype {np.asarray(actual).dtype}, expected {dtype}"
    check_close(actual, expected, F32_TOL if dtype_name == "f32" else BF16_TOL, case_id(case))


@nki.jit
def square_rows_masked_at_load_and_store(x):
    """x * x with the partial last row tile masked only on nl.load and nl.store, the way the
    RMSNorm and LayerNorm tutorials describe their masks; the square runs over the whole tile."""
    M, N = x.shape
    out = nl.ndarray((M, N), dtype=x.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    i_p = nl.arange(P)[:, None]
    i_f = nl.arange(N)[None, :]
    for t in nl.affine_range((M + P - 1) // P):
        x_tile = nl.load(x[t * P + i_p, i_f], mask=(t * P + i_p < M))
        y = nl.square(x_tile)
        nl.store(out[t * P + i_p, i_f], value=y, mask=(t * P + i_p < M))
    return out


def test_unmasked_compute_after_masked_load():
    """Rows a masked load left unwritten may be computed on (stale data on the hardware) as
    long as no such row reaches HBM (sim/nki R5)."""
    x = make_inputs([(33, 65)], np.float32, seed=1)[0]
    actual = nki.simulate_kernel(square_rows_masked_at_load_and_store, x)
    check_close(actual, x.astype(np.float64) ** 2, F32_TOL, "square_rows_masked_at_load_and_store")
