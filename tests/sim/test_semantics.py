"""Instructions and nl calls against NumPy references; real bf16; tutorial-style kernels."""
import numpy as np
import ml_dtypes

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from simtest import rand, run


def test_imports_and_constants():
    assert nki.AXON_SHIM
    assert nl.tile_size.pmax == 128 and nl.tile_size.psum_fmax == 512
    assert nl.tile_size.gemm_stationary_fmax == 128 and nl.tile_size.gemm_moving_fmax == 512
    assert nl.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    import neuronxcc.nki.typing as nt  # noqa: F401


def test_jit_call_forms():
    @nki.jit
    def a(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x))
        return out

    @nki.jit(mode="simulation")
    def b(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x))
        return out, out
    x = rand(16, 4)
    assert np.array_equal(a(x), x)
    first, second = b(x)
    assert np.array_equal(first, x) and np.array_equal(second, x)


def test_bf16_is_rounded_at_outputs():
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        nl.store(out, value=nl.exp(nl.load(x), dtype=nl.bfloat16))
        return out
    x = rand(8, 8)
    got = run(kernel, x)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert np.array_equal(got, np.exp(x).astype(ml_dtypes.bfloat16))


def test_nl_elementwise_and_reductions():
    def kernel(x, y):
        out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
        a, b = nl.load(x), nl.load(y)
        z = nl.maximum(a * 2.0 - b / 4.0, -a) + 1.0
        nl.store(out, value=nl.sum(nl.square(z), axis=1, keepdims=True))
        return out
    x, y = rand(128, 64), rand(128, 64, seed=1)
    z = np.maximum(x * 2 - y / 4, -x) + 1
    np.testing.assert_allclose(run(kernel, x, y), (z * z).sum(axis=1, keepdims=True), rtol=1e-5)


def test_softmax_rows():
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        neg_max = nisa.tensor_reduce(np.max, t, axis=(1,), negate=True, keepdims=True)
        total = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        e = nisa.activation(op=nl.exp, data=t, bias=neg_max, reduce_op=nl.add, reduce_res=total)
        nl.store(out, value=nisa.tensor_scalar(e, np.multiply, nisa.reciprocal(total)))
        return out
    x = rand(128, 300)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(run(kernel, x), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_rmsnorm_with_broadcast_gamma():
    def kernel(x, g):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        n = x.shape[1]
        g_tile = nl.load(g.reshape((1, n)))
        t = nl.load(x)
        ss = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(op=nl.square, data=t, reduce_op=np.add, reduce_res=ss)
        eps = nl.full((128, 1), 1e-6, dtype=nl.float32)
        r = nisa.activation(op=nl.rsqrt, data=ss, scale=1.0 / n, bias=eps)
        y = nl.multiply(t, r)
        nl.store(out, value=nl.multiply(y, g_tile.broadcast_to((128, n))))
        return out
    x, g = rand(128, 96), rand(96, seed=2)
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * g
    np.testing.assert_allclose(run(kernel, x, g), ref, rtol=1e-5, atol=1e-5)


def test_layernorm_stats():
    def kernel(x):
        out = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        stats = nl.ndarray((128, 12), dtype=nl.float32, buffer=nl.sbuf)
        stats[:, 0:6] = nisa.bn_stats(t[:, 0:512])
        stats[:, 6:12] = nisa.bn_stats(t[:, 512:1000])
        nl.store(out, value=nisa.bn_aggr(stats))
        return out
    x = rand(128, 1000)
    got = run(kernel, x)
    np.testing.assert_allclose(got[:, 0], x.mean(axis=1), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[:, 1], x.var(axis=1), rtol=1e-4, atol=1e-5)


def test_scan_cumsum():
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.load(x)
        ones = nl.ones(x.shape, dtype=nl.float32)
        nl.store(out, value=nisa.tensor_tensor_scan(ones, t, 0.0, np.multiply, np.add))
        return out
    x = rand(128, 40)
    np.testing.assert_allclose(run(kernel, x), np.cumsum(x, axis=1), rtol=1e-5, atol=1e-5)


def test_nl_matmul_both_layouts():
    def kernel(a, b):
        out = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        out2 = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        y = nl.load(b)
        nl.store(out, value=nl.copy(nl.matmul(x, y)))
        nl.store(out2, value=nl.copy(nl.matmul(nl.transpose(x), y, transpose_x=True)))
        return out, out2
    a, b = rand(128, 128), rand(128, 256, seed=1)
    first, second = run(kernel, a, b)
    np.testing.assert_allclose(first, a @ b, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(second, a @ b, rtol=1e-4, atol=1e-3)


def test_iota_and_affine_select_causal_mask():
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        i_p = nl.arange(64)[:, None]
        i_f = nl.arange(64)[None, :]
        t = nl.load(x)
        nl.store(out, value=nisa.affine_select(i_p - i_f >= 0, t, -1e9))
        return out
    x = rand(64, 64)
    np.testing.assert_allclose(run(kernel, x), np.where(np.tri(64, dtype=bool), x, -1e9))


def test_dma_copy_accumulate_and_cast():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=a)
        nisa.dma_copy(dst=out, src=a, dst_rmw_op=np.add)
        return out
    a = rand(128, 8)
    once = a.astype(ml_dtypes.bfloat16)
    expected = (once.astype(np.float32) + a).astype(ml_dtypes.bfloat16)
    assert np.array_equal(run(kernel, a), expected)


def test_benchmark_decorator_simulates():
    @nki.benchmark(warmup=1, iters=1)
    def kernel(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(x))
        return out
    x = rand(4, 4)
    assert np.array_equal(kernel(x), x)
    assert np.isnan(kernel.benchmark_result.nc_latency.get_latency_percentile(50))
