#!/usr/bin/env bash
# A Python virtual environment made by /usr/bin/python3 with exactly the pins of
# a requirements file: the one mechanism behind scripts/bench-env.sh and
# scripts/sim-env.sh.
#
#   pinned-venv.sh NAME VENV REQUIREMENTS "MODULE ..." [--system-site-packages]
#
# Idempotent and silent on success: when VENV already matches REQUIREMENTS and
# the interpreter (a stamp records both), it returns at once. Otherwise it
# deletes and rebuilds VENV, so no package outlives its pin, checks that the
# MODULEs import, and writes the stamp last, so an interrupted build is redone
# next time. One builder at a time (make -j may start several): the others wait
# on VENV.lock, then find the environment up to date. Exits 1 with a message on
# stderr (prefixed NAME) when it cannot build the environment.
set -euo pipefail

name=$1 venv=$2 requirements=$3 modules=$4
site=${5:-}
python=/usr/bin/python3
stamp=$venv/.axon-stamp

fail() {
  echo "$name: $*" >&2
  exit 1
}

[[ -f $requirements ]] || fail "missing $requirements"
[[ -x $python ]] || fail "missing $python (install python3 and python3-venv)"
want="$(sha256sum "$requirements" | cut -d' ' -f1) $("$python" --version 2>&1) $site"

up_to_date() { [[ -x $venv/bin/python && -f $stamp && $(<"$stamp") == "$want" ]]; }
up_to_date && exit 0

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9 || fail "cannot lock $venv.lock"
up_to_date && exit 0

if [[ -e $venv ]]; then
  [[ -f $venv/pyvenv.cfg ]] || fail "$venv exists and is not a virtual environment; not deleting it"
  rm -rf "$venv" || fail "cannot delete the outdated environment $venv"
fi

echo "$name: creating $venv from $requirements" >&2
"$python" -m venv $site "$venv" || fail "'$python -m venv' failed (is python3-venv installed?)"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --only-binary=:all: \
  -r "$requirements" >&2 || fail "pip install -r $requirements failed (see above; is PyPI reachable?)"
"$venv/bin/python" -c "import ${modules// /, }" 2>/dev/null ||
  fail "the new environment $venv cannot import $modules"
echo "$want" >"$stamp"
