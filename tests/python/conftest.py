"""Shared fixtures: the test programs (kernels/) and a few kernels searched
once per session with a small budget. The kernel cache is private to the run
(scripts/test-python.sh sets XDG_CACHE_HOME; a temporary one otherwise)."""

import importlib.util
import os
import sys
import tempfile

import pytest

KERNELS = os.path.join(os.path.dirname(__file__), "kernels")

if "XDG_CACHE_HOME" not in os.environ or not os.environ["XDG_CACHE_HOME"].startswith(tempfile.gettempdir()):
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="axon-test-cache-")

import axon  # noqa: E402  (after the cache is set)

# Small searches: the tests check behaviour, not speed.
SEARCH = {"budget": 10, "max_candidates": 2, "variants": 1}


def program(name):
    return os.path.join(KERNELS, name + ".py")


def function(name):
    """The function `name` of kernels/name.py, imported as NumPy code."""
    spec = importlib.util.spec_from_file_location("axon_test_" + name, program(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.fixture(scope="session")
def scale_kernel():
    return axon.optimize(function("scale"), {"M": 5, "N": 7}, **SEARCH)


@pytest.fixture(scope="session")
def rectangular_kernel():
    return axon.optimize(program("rectangular"), {"M": 3, "N": 8}, **SEARCH)
