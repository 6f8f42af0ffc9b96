#!/usr/bin/env bash
# Creates the NKI simulator's Python environment: a virtual environment at
# $AXON_SIM_VENV (default <repo>/.sim-venv) made by /usr/bin/python3 with
# --system-site-packages (Debian's NumPy and pytest stay visible), plus the pins of
# sim/nki/requirements.txt (ml_dtypes, for real bf16/fp8 dtypes; ~2 MB).
#
# Idempotent and silent on success: when the environment already matches the
# requirements and the interpreter (a stamp records both), it returns at once.
# Otherwise it deletes and rebuilds the environment and writes the stamp last, so an
# interrupted build is redone next time. Callers then run "$VENV/bin/python", e.g.
#   .sim-venv/bin/python -m pytest tests/sim
# Exits 1 with a message on stderr when it cannot build the environment.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${AXON_SIM_VENV:-$root/.sim-venv}
requirements=$root/sim/nki/requirements.txt
python=/usr/bin/python3
stamp=$venv/.axon-stamp

fail() {
  echo "sim-env: $*" >&2
  exit 1
}

[[ -f $requirements ]] || fail "missing $requirements"
[[ -x $python ]] || fail "missing $python (install python3, python3-venv and python3-numpy)"
want="$(sha256sum "$requirements" | cut -d' ' -f1) $("$python" --version 2>&1)"

up_to_date() { [[ -x $venv/bin/python && -f $stamp && $(<"$stamp") == "$want" ]]; }
up_to_date && exit 0

# One builder at a time; the others wait, then find the environment up to date.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9 || fail "cannot lock $venv.lock"
up_to_date && exit 0

if [[ -e $venv ]]; then
  [[ -f $venv/pyvenv.cfg ]] || fail "$venv exists and is not a virtual environment; not deleting it"
  rm -rf "$venv" || fail "cannot delete the outdated environment $venv"
fi

echo "sim-env: creating $venv from sim/nki/requirements.txt" >&2
"$python" -m venv --system-site-packages "$venv" || fail "'$python -m venv' failed (is python3-venv installed?)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
  -r "$requirements" >&2 || fail "pip install -r $requirements failed (see above; is PyPI reachable?)"
"$venv/bin/python" -c "import numpy, ml_dtypes" 2>/dev/null ||
  fail "the new environment $venv cannot import numpy and ml_dtypes"
echo "$want" >"$stamp"
