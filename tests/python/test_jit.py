"""axon.jit: one kernel per set of input shapes, sizes bound by the C++ rules."""

import numpy as np
import pytest

import axon
from conftest import SEARCH, function

rng = np.random.default_rng(3)


def test_dispatch_by_shape():
    scale = function("scale")
    fast = axon.jit(**SEARCH)(scale)
    x, g = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(fast(x, g), scale(x, g), rtol=1e-5, atol=1e-5)
    first = fast.kernels[((3, 4), (4,))]
    np.testing.assert_allclose(fast(x * 2, g), scale(x * 2, g), rtol=1e-5, atol=1e-5)
    assert fast.kernels == {((3, 4), (4,)): first}  # the same kernel, not a new search
    y = rng.standard_normal((2, 6)).astype(np.float64)  # exact in float32? no: rounded first
    y = y.astype(np.float32).astype(np.float64)
    g6 = rng.standard_normal(6).astype(np.float32)
    np.testing.assert_allclose(fast(y, g6), scale(y, g6), rtol=1e-5, atol=1e-5)
    assert len(fast.kernels) == 2
    assert fast.__name__ == "scale"


def test_a_new_wrapper_is_answered_by_the_cache():
    scale = function("scale")
    x, g = np.ones((3, 4), np.float32), np.ones(4, np.float32)
    axon.jit(**SEARCH)(scale)(x, g)
    again = axon.jit(**SEARCH)(scale)
    again(x, g)
    assert again.kernels[((3, 4), (4,))].from_cache


def test_sizes_that_do_not_bind():
    fast = axon.jit(**SEARCH)(function("scale"))
    with pytest.raises(axon.ProgramError, match="N=5.*N=4|N=4.*N=5"):
        fast(np.ones((3, 4), np.float32), np.ones(5, np.float32))
    with pytest.raises(axon.ProgramError, match="rank"):
        fast(np.ones(4, np.float32), np.ones(4, np.float32))
    assert fast.kernels == {}
