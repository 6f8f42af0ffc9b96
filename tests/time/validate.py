#!/usr/bin/env python3
"""The trn1 timing model against published measurements (research note nki.md 4.5).

Traces our own versions of the tutorials' kernels (tests/time/kernels) with the NKI simulator
in dry mode, times each trace with `axon time --json`, prints simulated against published
numbers, and checks:

  matmul  the NKI matmul tutorial's four steps at [4096, 8192] @ [8192, 8192] bf16 on trn1:
          51.80, 42.96, 22.07, 6.97 ms. Same ranking; every pairwise ratio within 30%.
  layernorm  the layernorm tutorial's v1 and v2 at 4096 x 8192 f32: 2311 and 1969 us; the
          ratio within 15%.
  chain   a chain of dependent one-element Scalar-engine activations: ~189 ns each (NKI
          performance guide), within 10%.

    validate.py --axon build/axon --python .sim-venv/bin/python [--only matmul,layernorm,chain]
                [--quick]

--quick runs the matmul steps at [2048, 2048] @ [2048, 2048] and checks only their ranking
(the published ratios belong to the bench size); the other checks are fast at full size.
Exit status 0 when every check passes, 1 otherwise.
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.path.join(ROOT, "sim", "nki", "axon_nki_run.py")
KERNELS = os.path.join(ROOT, "tests", "time", "kernels")

MATMUL = [("mm_tiled", 51.80), ("mm_hoisted", 42.96), ("mm_blocked_free", 22.07),
          ("mm_blocked_all", 6.97)]  # ms
LAYERNORM = [("ln_v1", 2311.0), ("ln_v2", 1969.0)]  # us
CHAIN_NS = 189.0


def simulate(args, folder, kernel_file, entry, inputs, dtypes):
    """Traces `entry` dry and times it: (the timing as a dict, seconds to trace, to time)."""
    trace = os.path.join(folder, entry + ".jsonl")
    command = [args.python, RUNNER, "--dry", "--kernel", os.path.join(KERNELS, kernel_file),
               "--entry", entry, "--inputs", inputs, "--dtypes", dtypes,
               "--outputs", os.path.join(folder, "out.npy"), "--trace", trace]
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    traced = time.monotonic() - start
    if run.returncode != 0:
        sys.exit("tracing %s failed (%d):\n%s" % (entry, run.returncode, run.stderr))
    start = time.monotonic()
    timed = subprocess.run([args.axon, "time", trace, "--json"], capture_output=True, text=True)
    elapsed = time.monotonic() - start
    if timed.returncode != 0:
        sys.exit("axon time %s failed (%d):\n%s" % (trace, timed.returncode, timed.stderr))
    return json.loads(timed.stdout), traced, elapsed


def check(failures, ok, what):
    print("  %s  %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


def matmul(args, folder, failures):
    shape = ("2048x2048,2048x2048" if args.quick else "8192x4096,8192x8192")
    print("matmul tutorial, lhsT %s, rhs %s bf16%s" % (*shape.split(","), " (quick: ranking only)"
                                                       if args.quick else ""))
    simulated = {}
    for entry, published in MATMUL:
        t, traced, timed = simulate(args, folder, "matmul_steps.py", entry, shape, "bf16,bf16")
        simulated[entry] = t["total_ms"]
        print("  %-16s simulated %8.2f ms  published %6.2f ms  (%d instructions; traced in %.0f s, "
              "timed in %.2f s)" % (entry, t["total_ms"], published, t["instructions"], traced, timed))
    order = sorted(simulated, key=simulated.get, reverse=True)
    check(failures, order == [e for e, _ in MATMUL], "ranking %s" % " > ".join(order))
    if args.quick:
        return
    for (a, pa), (b, pb) in itertools.combinations(MATMUL, 2):
        ratio, published = simulated[a] / simulated[b], pa / pb
        error = ratio / published - 1
        check(failures, abs(error) <= 0.30, "%s / %s = %.2f, published %.2f (%+.0f%%, limit 30%%)"
              % (a, b, ratio, published, 100 * error))


def layernorm(args, folder, failures):
    print("layernorm tutorial, x 4096 x 8192 f32")
    simulated = {}
    for entry, published in LAYERNORM:
        t, _, _ = simulate(args, folder, "layernorm_steps.py", entry, "4096x8192,8192,8192",
                           "f32,f32,f32")
        simulated[entry] = t["total_ns"] / 1e3
        print("  %-6s simulated %7.0f us  published %5.0f us" % (entry, simulated[entry], published))
    ratio = simulated["ln_v1"] / simulated["ln_v2"]
    published = LAYERNORM[0][1] / LAYERNORM[1][1]
    error = ratio / published - 1
    check(failures, abs(error) <= 0.15, "v1 / v2 = %.3f, published %.3f (%+.1f%%, limit 15%%)"
          % (ratio, published, 100 * error))


def chain(args, folder, failures):
    print("dependent one-element Scalar-engine activations")
    short, _, _ = simulate(args, folder, "scalar_chain.py", "chain", "1x1", "f32")
    long, _, _ = simulate(args, folder, "scalar_chain.py", "chain", "1x1001", "f32")
    per = (long["total_ns"] - short["total_ns"]) / 1000
    error = per / CHAIN_NS - 1
    check(failures, abs(error) <= 0.10, "%.1f ns per instruction, published ~%.0f ns (%+.1f%%, "
          "limit 10%%)" % (per, CHAIN_NS, 100 * error))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--axon", required=True)
    parser.add_argument("--python", default=os.path.join(ROOT, ".sim-venv", "bin", "python"))
    parser.add_argument("--only", default="matmul,layernorm,chain")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(args.python):
        sys.exit("no simulator environment at %s (make sim-env)" % args.python)
    failures = []
    with tempfile.TemporaryDirectory(prefix="axon-time-") as folder:
        for name in args.only.split(","):
            {"matmul": matmul, "layernorm": layernorm, "chain": chain}[name](args, folder, failures)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
