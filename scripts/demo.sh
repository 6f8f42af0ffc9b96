#!/usr/bin/env bash
# make demo: Axon's main job on a real kernel at a realistic size. It
# optimizes softmax_matmul (softmax(s) @ v, attention's second half, with
# 1024 queries over 4096 keys, head size 128) for this CPU, then shows what the
# search chose: its time against NumPy running the same file on the same
# inputs, and the rewrite it used with its proof (dividing by the softmax's sum
# after the product, 32x fewer divisions, proved for every T by induction).
# Under 2 minutes on 2 cores. Pass another kernel and sizes to try one:
#   scripts/demo.sh [FILE [DIMS]]
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-bench/kernels/softmax_matmul.py}
dims=${2:-bench}
out=build/demo
# A fresh search each time (--no-cache): the demo shows the search, not the cache.
./build/axon optimize "$file" --dims "$dims" -o "$out" --budget 60 --max-candidates 6 --no-cache --quiet
echo
# The result and the rewrites, as report.md shows them first.
/usr/bin/python3 - "$out/report.md" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
for line in lines:
    if line.startswith("## Code"):
        break
    print(line)
PY
echo "(the kernel's code, the candidates and every proof: $out/report.md, $out/report.html, $out/search.json)"
