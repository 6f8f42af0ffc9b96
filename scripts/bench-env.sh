#!/usr/bin/env bash
# Creates the benchmark harness's Python environment: a virtual environment at
# $AXON_BENCH_VENV (default <repo>/.bench-venv) made by /usr/bin/python3, with
# exactly the pins of bench/requirements.txt (torch, jax, openvino, numpy; ~6 GB, mostly
# torch's CUDA wheels, which the PyPI build cannot import without). Idempotent
# and silent when up to date (scripts/pinned-venv.sh). Callers then run
# "$VENV/bin/python". Exits 1 with a message when it cannot build it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "$root/scripts/pinned-venv.sh" bench-env "${AXON_BENCH_VENV:-$root/.bench-venv}" \
  "$root/bench/requirements.txt" "numpy torch jax openvino"
