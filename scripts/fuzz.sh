#!/usr/bin/env bash
# Runs the libFuzzer targets built in BUILD_DIR for about SECONDS in total,
# seeded with the project's programs. Fails on any crash or sanitizer report.
set -euo pipefail
build=${1:?usage: fuzz.sh BUILD_DIR SECONDS}
seconds=${2:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/programs" "$work/npy"
for dir in bench/kernels examples tests/programs tests/errors; do
  for f in "$root/$dir"/*.py; do
    [[ -e "$f" ]] && cp "$f" "$work/programs/${dir//\//_}_$(basename "$f")"
  done
done
/usr/bin/python3 - "$work/npy" <<'PY'
import sys, numpy as np
d = sys.argv[1]
for i, (shape, dt) in enumerate([((3, 4), np.float32), ((5,), np.float64), ((), np.float16), ((2, 0, 3), np.float32)]):
    np.save(f"{d}/seed{i}.npy", np.arange(int(np.prod(shape)), dtype=dt).reshape(shape))
PY

parser_seconds=$(( seconds * 2 / 3 ))
npy_seconds=$(( seconds - parser_seconds ))
cd "$work"
run() {  # name seconds corpus [extra flags]
  local name=$1 secs=$2 corpus=$3
  shift 3
  if ! "$root/$build/$name" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$root/$build/" \
       -print_final_stats=1 "$@" "$corpus" >"$work/$name.log" 2>&1; then
    tail -n 80 "$work/$name.log"
    echo "fuzz: $name found a failure; the reproducer is in $build/" >&2
    return 1
  fi
  echo "$name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name.log" | grep -o '[0-9]*$') inputs, no failures"
}
run fuzz_parser "$parser_seconds" programs -dict="$root/tests/fuzz/python.dict"
run fuzz_npy "$npy_seconds" npy
echo "fuzz: no crashes in ${seconds}s"
