"""Errors are Python exceptions with the C++ side's facts."""

import os

import pytest

import axon
from conftest import SEARCH, program


def test_hierarchy():
    for cls in (axon.ProgramError, axon.NoValidKernelError, axon.InternalError, axon.ArgumentError,
                axon.LoadError):
        assert issubclass(cls, axon.Error)


def test_bad_program_has_a_location():
    with pytest.raises(axon.ProgramError) as e:
        axon.optimize(program("bad_program"), {"N": 8}, **SEARCH)
    err = e.value
    assert err.file.endswith("bad_program.py") and (err.line, err.col) == (6, 15)
    assert "np.sort" in err.message
    assert str(err).startswith(err.file + ":6:15: error:")
    assert "return np.sort(x)" in str(err)  # the source line and its caret


def test_bad_sizes():
    with pytest.raises(axon.ProgramError, match="nope"):
        axon.optimize(program("scale"), "nope", **SEARCH)
    with pytest.raises(axon.ArgumentError):
        axon.optimize(program("scale"), {"M": 2.5, "N": 3}, **SEARCH)


def test_unknown_option():
    with pytest.raises(axon.ArgumentError, match="unknown search option 'fast'"):
        axon.optimize(program("scale"), "test", fast=True)


def test_missing_file():
    with pytest.raises(axon.ProgramError):
        axon.verify(program("no_such_program"), program("scale"))


def test_function_outside_a_file():
    f = eval("lambda x: x")
    with pytest.raises(axon.Error, match="source file"):
        axon.verify(f, f)


def test_no_valid_kernel(monkeypatch):
    monkeypatch.setenv("AXON_CXX", "/bin/false")  # every candidate fails to compile
    with pytest.raises(axon.NoValidKernelError, match="no candidate kernel was valid") as e:
        axon.optimize(program("add"), {"N": 8}, cache=False, **SEARCH)
    assert e.value.file.endswith("add.py") and e.value.line == 5
    failed = e.value.message.split("see ")[1].split(" ")[0]
    assert failed.endswith("report.md") and os.path.exists(failed)  # the report it names is kept


def test_internal_errors(scale_kernel):
    # A converter that breaks its contract is Axon's bug, reported as one.
    import numpy as np
    from axon import _axon
    from axon._convert import to_float32
    _axon.set_converter(lambda value, name, shape: np.zeros(shape, np.float64))
    try:
        with pytest.raises(axon.InternalError, match="converter returned no C-contiguous float32 array"):
            scale_kernel(np.zeros((5, 7)), np.zeros(7, np.float32))
    finally:
        _axon.set_converter(to_float32)
    assert scale_kernel(np.zeros((5, 7)), np.zeros(7, np.float32)).shape == (5, 7)
