"""Calling a kernel with NumPy arrays: every layout and dtype gives the right
answer or an error, never a wrong answer."""

import threading

import numpy as np
import pytest

import axon
from conftest import function

rng = np.random.default_rng(7)
scale = function("scale")
rectangular = function("rectangular")


def inputs(m=5, n=7):
    return rng.standard_normal((m, n)).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def check(kernel, want_fn, *arrays):
    got = kernel(*arrays)
    want = want_fn(*[np.asarray(a, dtype=np.float64) for a in arrays])
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
    else:
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        assert g.dtype == np.float32 and g.shape == w.shape and g.flags.c_contiguous
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    return got


def test_contiguous_float32(scale_kernel):
    x, g = inputs()
    check(scale_kernel, scale, x, g)


def test_results_are_new_arrays(scale_kernel):
    x, g = inputs()
    a, b = scale_kernel(x, g), scale_kernel(x, g)
    assert a is not b and not np.shares_memory(a, b) and not np.shares_memory(a, x)
    assert a.flags.writeable
    a[...] = 0  # writing one result changes neither the other nor the inputs
    np.testing.assert_allclose(b, scale(x, g), rtol=1e-5, atol=1e-5)


def test_results_start_on_a_64_byte_boundary(scale_kernel, rectangular_kernel):
    # As in the search's timing runs, so a kernel chosen with streaming stores
    # (which take only aligned addresses) runs as it was measured.
    x, g = inputs()
    for _ in range(5):
        y = scale_kernel(x, g)
        assert y.ctypes.data % 64 == 0 and y.flags.c_contiguous and y.dtype == np.float32
    a = rng.standard_normal((3, 8)).astype(np.float32)
    b = rng.standard_normal((8, 3)).astype(np.float32).T
    for r in rectangular_kernel(a, b):
        assert r.ctypes.data % 64 == 0 and r.flags.c_contiguous


def test_read_only_input(scale_kernel):
    x, g = inputs()
    x.flags.writeable = False
    check(scale_kernel, scale, x, g)


def test_fortran_order(scale_kernel):
    x, g = inputs()
    check(scale_kernel, scale, np.asfortranarray(x), g)


def test_transposed_view(scale_kernel):
    xt = rng.standard_normal((7, 5)).astype(np.float32)
    _, g = inputs()
    check(scale_kernel, scale, xt.T, g)


def test_strided_views(scale_kernel):
    big = rng.standard_normal((10, 21)).astype(np.float32)
    g_big = rng.standard_normal(14).astype(np.float32)
    check(scale_kernel, scale, big[::2, ::3], g_big[::2])
    check(scale_kernel, scale, big[5:, 14:][::-1, ::-1], g_big[7:][::-1])


def test_broadcast_view(scale_kernel):
    row = rng.standard_normal(7).astype(np.float32)
    x = np.broadcast_to(row, (5, 7))  # strides (0, 4)
    check(scale_kernel, scale, x, row)


def test_byte_swapped(scale_kernel):
    x, g = inputs()
    check(scale_kernel, scale, x.astype(">f4"), g)


def test_two_results_and_layouts(rectangular_kernel):
    a = rng.standard_normal((3, 8)).astype(np.float32)
    b = rng.standard_normal((8, 3)).astype(np.float32).T
    s, r = check(rectangular_kernel, rectangular, a, b)
    assert s.shape == (3, 8) and r.shape == (3,)
    check(rectangular_kernel, rectangular, np.asfortranarray(a), np.ascontiguousarray(b))


def test_exact_float64_and_ints_are_converted(scale_kernel):
    x, g = inputs()
    check(scale_kernel, scale, x.astype(np.float64), g.astype(np.float16).astype(np.float64))
    ints = rng.integers(-2**24, 2**24, size=(5, 7))
    check(scale_kernel, scale, ints, g)
    check(scale_kernel, scale, ints.astype(np.int32), np.ones(7, dtype=bool))
    check(scale_kernel, scale, x.tolist(), g)  # nested lists: an array first
    big = np.full((5, 7), 2**60, dtype=np.int64)  # large, but a power of two: exact
    check(scale_kernel, scale, big, g)


def test_inexact_values_raise(scale_kernel):
    x, g = inputs()
    x64 = x.astype(np.float64)
    x64[2, 3] += 1e-12
    with pytest.raises(axon.ArgumentError, match=r"'x'.*\(2, 3\)"):
        scale_kernel(x64, g)
    odd = np.full((5, 7), 2**24 + 1, dtype=np.int64)
    with pytest.raises(axon.ArgumentError, match="'x'.*not exactly float32"):
        scale_kernel(odd, g)
    with pytest.raises(axon.ArgumentError, match="'x'.*not exactly float32"):
        scale_kernel(np.full((5, 7), 2**60 + 1, dtype=np.int64), g)
    with pytest.raises(axon.ArgumentError, match="'g'.*complex"):
        scale_kernel(x, g.astype(np.complex64))


def test_wrong_shape_names_parameter_and_both_shapes(scale_kernel):
    x, g = inputs()
    with pytest.raises(axon.ArgumentError) as e:
        scale_kernel(x.T.copy(), g)
    assert "'x'" in str(e.value) and "[5, 7]" in str(e.value) and "[7, 5]" in str(e.value)
    with pytest.raises(axon.ArgumentError, match=r"'g' has shape \[7\].*\[5\]"):
        scale_kernel(x, g[:5])
    with pytest.raises(axon.ArgumentError, match=r"'x'.*\[5, 7\].*\[35\]"):
        scale_kernel(x.ravel(), g)
    with pytest.raises(axon.ArgumentError, match=r"'x'.*\[5, 7\].*\[5, 14\]"):  # strided, converted first
        scale_kernel(np.zeros((5, 14), dtype=np.float64), g)


def test_wrong_argument_count(scale_kernel):
    x, g = inputs()
    with pytest.raises(axon.ArgumentError, match=r"takes 2 array\(s\) \(x, g\) but 1 were given"):
        scale_kernel(x)
    with pytest.raises(axon.ArgumentError, match="but 3 were given"):
        scale_kernel(x, g, g)
    assert issubclass(axon.ArgumentError, axon.Error)


def test_threads_share_a_kernel(scale_kernel):
    pairs = [inputs() for _ in range(8)]
    results = [None] * len(pairs)

    def work(i):
        for _ in range(200):
            results[i] = scale_kernel(*pairs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(pairs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (x, g), got in zip(pairs, results):
        np.testing.assert_allclose(got, scale(x, g), rtol=1e-5, atol=1e-5)
