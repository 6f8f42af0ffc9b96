#!/bin/sh
# The Python package's tests: a virtual environment under build/ over the
# Debian Python (which has NumPy and pytest), `pip install .` into it, and
# pytest with the environment's interpreter. Usage: scripts/test-python.sh [PYTEST ARGS...]
set -eu
cd "$(dirname "$0")/.."
venv=build/python-venv
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p build
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
# The build requirements, pinned in pyproject.toml, installed once so that
# repeated installs reuse build/python (pip's isolated build would not).
requires=$("$venv/bin/python" -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
# shellcheck disable=SC2086
"$venv/bin/pip" install --quiet --disable-pip-version-check $requires
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_ARGS="${CMAKE_ARGS:-} -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation .
# A private kernel cache, removed afterwards.
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
XDG_CACHE_HOME="$cache" "$venv/bin/python" -m pytest tests/python -q "$@"
