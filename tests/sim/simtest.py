"""Helpers for the simulator tests: run a kernel, expect a rule."""
import numpy as np
import pytest

import neuronxcc.nki as nki
from neuronxcc.nki import NkiSimError


def run(kernel, *arrays):
    return nki.simulate_kernel(kernel, *arrays)


def expect_rule(rule, kernel, *arrays):
    with pytest.raises(NkiSimError) as caught:
        nki.simulate_kernel(kernel, *arrays)
    error = caught.value
    assert error.rule == rule, "expected [%s], got: %s" % (rule, error.format())
    assert error.location[0].endswith(".py") and error.location[1] > 0, error.format()
    assert ("[%s]" % rule) in error.format()
    return error


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
