"""Puts sim/nki on sys.path; the suite needs ml_dtypes (run scripts/sim-env.sh, then
.sim-venv/bin/python -m pytest tests/sim)."""
import os
import sys

import pytest

SIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sim", "nki")
sys.path.insert(0, os.path.abspath(SIM_DIR))

try:
    import ml_dtypes  # noqa: F401
except ImportError:
    collect_ignore_glob = ["test_*.py"]

    def pytest_configure(config):
        print("tests/sim: ml_dtypes is missing; run scripts/sim-env.sh and use "
              ".sim-venv/bin/python -m pytest tests/sim", file=sys.stderr)
