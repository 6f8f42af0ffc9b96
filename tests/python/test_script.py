"""A kernel defined in a script that also imports and calls axon: its program
is the function with the helpers and constants it uses, at their own lines."""

import importlib.util

import numpy as np
import pytest

import axon
from conftest import SEARCH, program


def script():
    spec = importlib.util.spec_from_file_location("axon_test_script", program("script"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_function_in_a_script_optimizes():
    normalize = script().normalize  # the jit wrapper
    kernel = axon.optimize(normalize, "small", **SEARCH)
    x = np.random.default_rng(1).standard_normal((3, 10)).astype(np.float32)
    want = x / np.sqrt(np.mean(x.astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(kernel(x), want, rtol=1e-5)
    assert kernel.report["sizes"] == "M=3,N=10"


def test_jit_wrapper_in_a_script_dispatches():
    normalize = script().normalize
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(normalize(x), x / np.sqrt(1 + 1e-6), rtol=1e-6)


def test_error_points_at_the_scripts_own_line():
    broken = script().broken
    with pytest.raises(axon.ProgramError) as caught:
        axon.optimize(broken, {"M": 2, "N": 2}, **SEARCH)
    err = caught.value
    assert err.file == program("script")
    lines = open(program("script")).read().splitlines()
    assert "np.fft.fft" in lines[err.line - 1], (err.line, str(err))


def test_the_whole_file_as_a_path_is_refused_with_its_location():
    # Given as a path, the file is the program: its other code is outside the subset.
    with pytest.raises(axon.ProgramError) as caught:
        axon.optimize(program("script"), "small", entry="normalize", **SEARCH)
    assert caught.value.file == program("script") and caught.value.line >= 1


def test_module_data_named_like_a_parameter_stays_out():
    # script.py has x = np.random... at module level; normalize(x) reads its own x.
    module = script()
    kernel = axon.optimize(module.normalize, "small", **SEARCH)
    want = module.x / np.sqrt(np.mean(module.x.astype(np.float64) ** 2, axis=-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(kernel(module.x), want, rtol=1e-5)
