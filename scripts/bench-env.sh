#!/usr/bin/env bash
# Creates the benchmark harness's Python environment: a virtual environment at
# $AXON_BENCH_VENV (default <repo>/.bench-venv) made by /usr/bin/python3, with
# exactly the pins of bench/requirements.txt (torch, jax, numpy; ~3.5 GB, mostly
# torch's CUDA wheels, which the PyPI build cannot import without).
#
# Idempotent and silent on success: when the environment already matches the
# requirements and the interpreter (a stamp records both), it returns at once.
# Otherwise it deletes and rebuilds the environment, so no package outlives its
# pin, and writes the stamp last, so an interrupted build is redone next time.
# Callers then run "$VENV/bin/python", with VENV as above. Exits 1 with a message
# on stderr when it cannot build the environment.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${AXON_BENCH_VENV:-$root/.bench-venv}
requirements=$root/bench/requirements.txt
python=/usr/bin/python3
stamp=$venv/.axon-stamp

fail() {
  echo "bench-env: $*" >&2
  exit 1
}

[[ -f $requirements ]] || fail "missing $requirements"
[[ -x $python ]] || fail "missing $python (install python3 and python3-venv)"
want="$(sha256sum "$requirements" | cut -d' ' -f1) $("$python" --version 2>&1)"

up_to_date() { [[ -x $venv/bin/python && -f $stamp && $(<"$stamp") == "$want" ]]; }
up_to_date && exit 0

# One builder at a time (make -j may start several); the others wait, then find
# the environment up to date.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9 || fail "cannot lock $venv.lock"
up_to_date && exit 0

if [[ -e $venv ]]; then
  [[ -f $venv/pyvenv.cfg ]] || fail "$venv exists and is not a virtual environment; not deleting it"
  rm -rf "$venv" || fail "cannot delete the outdated environment $venv"
fi

echo "bench-env: creating $venv from bench/requirements.txt (downloads ~3.5 GB from PyPI)" >&2
"$python" -m venv "$venv" || fail "'$python -m venv' failed (is python3-venv installed?)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
  -r "$requirements" >&2 || fail "pip install -r $requirements failed (see above; is PyPI reachable?)"
"$venv/bin/python" -c "import numpy, torch, jax" 2>/dev/null ||
  fail "the new environment $venv cannot import numpy, torch and jax"
echo "$want" >"$stamp"
