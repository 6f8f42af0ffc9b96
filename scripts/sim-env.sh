#!/usr/bin/env bash
# Creates the NKI simulator's Python environment: a virtual environment at
# $AXON_SIM_VENV (default <repo>/.sim-venv) made by /usr/bin/python3 with
# --system-site-packages (Debian's NumPy and pytest stay visible), plus the pins
# of sim/nki/requirements.txt (ml_dtypes, for real bf16/fp8 dtypes; ~2 MB).
# Idempotent and silent when up to date (scripts/pinned-venv.sh). Callers then
# run "$VENV/bin/python", e.g. .sim-venv/bin/python -m pytest tests/sim
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
exec "$root/scripts/pinned-venv.sh" sim-env "${AXON_SIM_VENV:-$root/.sim-venv}" \
  "$root/sim/nki/requirements.txt" "numpy ml_dtypes" --system-site-packages
