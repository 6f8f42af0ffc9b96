"""Errors are Python exceptions with the C++ side's facts."""

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
