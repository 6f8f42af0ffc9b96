#!/bin/sh
# Builds and runs the prelude checks (not part of the CMake build):
#   1. tests/hw/prelude_check.cpp against hw/x86-avx2-prelude.h: accuracy and
#      behaviour, run here (exit 77 = skipped: no AVX2);
#   2. the same against hw/x86-avx512-prelude.h: always compiled, run only
#      where the CPU has AVX-512F/DQ;
#   3. tests/hw/check_emits.py: every emit text of the cpu descriptions compiles
#      with its prelude and compile_flags.
# usage: tests/hw/prelude_check.sh [--all]   (--all also sweeps every float: minutes)
# Exit status: 0 when every check that could run passed.
set -u
cd "$(dirname "$0")/../.." || exit 1
CXX=${CXX:-g++}
out=${TMPDIR:-/tmp}/axon-prelude-check.$$
mkdir -p "$out" || exit 1
trap 'rm -rf "$out"' EXIT
status=0

$CXX -std=c++17 -O2 -Wall -Wextra -mavx2 -mfma -I hw tests/hw/prelude_check.cpp -o "$out/avx2" || exit 1
"$out/avx2" "$@"
rc=$?
if [ $rc -eq 77 ]; then echo "avx2: skipped (CPU lacks AVX2)"; elif [ $rc -ne 0 ]; then status=1; fi

# GCC 12's own AVX-512 headers trip -Wuninitialized (GCC PR 105593), hence the -Wno.
$CXX -std=c++17 -O2 -Wall -Wextra -Wno-uninitialized -Wno-maybe-uninitialized \
  -mavx512f -mavx512dq -mavx2 -mfma -DAXON_CHECK_AVX512 -I hw tests/hw/prelude_check.cpp -o "$out/avx512" || exit 1
"$out/avx512" "$@"
rc=$?
if [ $rc -eq 77 ]; then echo "avx512: compiled; not run (CPU lacks AVX-512)"; elif [ $rc -ne 0 ]; then status=1; fi

python3 tests/hw/check_emits.py || status=1
exit $status
