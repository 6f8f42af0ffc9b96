#!/usr/bin/env bash
# Compiles the expert-library baselines into shared libraries:
#   bench/baselines/build.sh OUTDIR [kernel...]    -> OUTDIR/<kernel>.so (all kernels when none named)
# A library newer than its source and common.h is kept. Exits nonzero, with the
# compiler's message on stderr, when one fails to build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -lt 1 ]]; then
  echo "usage: $0 OUTDIR [kernel...]" >&2
  exit 2
fi
out="$1"
shift
mkdir -p "$out"

if [[ $# -eq 0 ]]; then
  set -- $(cd "$here" && ls *.cpp | sed 's/\.cpp$//')
fi

status=0
for kernel in "$@"; do
  src="$here/$kernel.cpp"
  if [[ ! -f "$src" ]]; then
    echo "build.sh: no baseline $src" >&2
    status=1
    continue
  fi
  if [[ "$out/$kernel.so" -nt "$src" && "$out/$kernel.so" -nt "$here/common.h" && "$out/$kernel.so" -nt "$0" ]]; then
    continue
  fi
  if ! g++ -O3 -march=native -std=c++17 -fPIC -shared -fopenmp -Wall -Wextra -I"$here" \
      -o "$out/$kernel.so" "$src" -ldnnl -lopenblas; then
    echo "build.sh: $kernel failed to compile" >&2
    status=1
  fi
done
exit $status
