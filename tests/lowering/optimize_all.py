#!/usr/bin/env python3
"""Optimizes every bench kernel and test program for the cpu target at its test
sizes and at prime sizes (which divide no tile), and requires `axon optimize`
to succeed: it validates each candidate against the float64 reference
interpreter itself (rtol 1e-4, atol 1e-5 x reduction length) and fails when
none is valid. Also runs `axon exec` on one result and compares with
`axon run`."""
import argparse
import ast
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def next_prime(n):
    def prime(k):
        return k > 1 and all(k % d for d in range(2, int(k ** 0.5) + 1))
    while not prime(n):
        n += 1
    return n


def test_sizes(path):
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SIZES" for t in node.targets):
            return ast.literal_eval(node.value).get("test", {})
    return {}


def optimize(axon, program, dims, out, variants, max_candidates=8):
    cmd = [axon, "optimize", str(program), "-o", out, "--variants", str(variants), "--quiet", "--no-cache",
           "--max-candidates", str(max_candidates)]
    if dims:
        cmd += ["--dims", dims]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    text = (p.stdout + p.stderr).strip()
    rc = p.returncode
    if rc == 0:
        # Every measured candidate must be valid, not only the chosen one: a
        # wrong result from proved lowerings is a bug. (Cut-off candidates
        # were never compiled.)
        report = pathlib.Path(out, "report.md").read_text()
        table = report[report.index("## Candidates"):report.index("## Chosen variant")]
        rows = [line for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
        bad = [row for row in rows if "| valid" not in row and "| cut off: --max-candidates" not in row]
        if not any("| valid" in row for row in rows):
            bad.append("(no valid candidate in the table)")
        if bad:
            rc, text = 1, text + "\ninvalid candidates:\n" + "\n".join(bad)
    return rc, text, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--variants", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-candidates", type=int, default=8, help="candidates measured (and checked) per search")
    ap.add_argument("--quick", action="store_true",
                    help="the reduced form `make test` runs: tests/programs at their test sizes only, "
                         "2 candidates each; the bench kernels at test and prime sizes, 4 candidates each")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    programs = [pathlib.Path(p) for p in args.programs] or sorted((ROOT / "bench/kernels").glob("*.py")) + sorted(
        (ROOT / "tests/programs").glob("*.py"))
    jobs = []
    for prog in programs:
        sizes = test_sizes(prog)
        jobs.append((prog, "test" if sizes else "", "test"))
        if sizes and not (args.quick and "bench" not in prog.parts):
            primes = ",".join(f"{k}={next_prime(max(v, 5))}" for k, v in sizes.items())
            jobs.append((prog, primes, "primes"))
    # Sizes at which contractions copy operands into panels (strides >= 256,
    # several blocks of rows and of vectors), with tails everywhere.
    if not args.programs:
        jobs.append((ROOT / "bench/kernels/matmul.py", "M=37,K=70,N=300", "panels"))
        jobs.append((ROOT / "bench/kernels/transpose_matmul.py", "K=70,M=301,N=211", "panels"))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {}
        for i, (prog, dims, kind) in enumerate(jobs):
            # The language corpus checks that programs compile and lower correctly; the bench
            # kernels also check the emitter's schedules, with more candidates each.
            if "bench" in prog.parts:
                measured = min(args.max_candidates, 4) if args.quick else args.max_candidates
            else:
                measured = min(args.max_candidates, 2 if args.quick else 4)
            futures[pool.submit(optimize, args.axon, prog, dims, f"{tmp}/{i}", args.variants,
                                 measured)] = (prog, dims, kind)
        for f in concurrent.futures.as_completed(futures):
            prog, dims, kind = futures[f]
            rc, text, secs = f.result()
            name = prog.relative_to(ROOT) if prog.is_absolute() and ROOT in prog.parents else prog
            status = "ok" if rc == 0 else "FAIL"
            print(f"{status:4} {name} [{kind}: {dims}] {secs:.1f}s  {text.splitlines()[-1] if text else ''}", flush=True)
            if rc != 0:
                failures += 1
                print("     " + text.replace("\n", "\n     "), flush=True)
        failures += exec_round_trip(args.axon, tmp)
    print(f"{len(jobs) - failures} of {len(jobs)} optimized and validated")
    return 1 if failures else 0


def exec_round_trip(axon, tmp):
    """`axon exec` on an emitted kernel agrees with `axon run` on the same inputs."""
    import numpy as np
    prog = ROOT / "examples/rmsnorm.py"
    out = f"{tmp}/exec"
    rc, text, _ = optimize(axon, prog, "test", out, 1)
    if rc != 0:
        print("FAIL exec round trip: optimize failed\n" + text)
        return 1
    rng = np.random.default_rng(3)
    np.save(f"{tmp}/x.npy", rng.standard_normal((7, 33)).astype(np.float32))
    np.save(f"{tmp}/g.npy", rng.standard_normal(33).astype(np.float32))
    inputs = ["--in", f"x={tmp}/x.npy", "--in", f"g={tmp}/g.npy"]
    e = subprocess.run([axon, "exec", out, *inputs, "--out", f"{tmp}/y_exec.npy"], capture_output=True, text=True)
    if e.returncode:
        print("FAIL exec round trip:\n" + e.stdout + e.stderr)
        return 1
    # The check of axon optimize: within the reference's rounding bound.
    r = subprocess.run([axon, "run", str(prog), *inputs, "--check", f"{tmp}/y_exec.npy"], capture_output=True, text=True)
    line = next((l for l in r.stdout.splitlines() if l.startswith("check ")), r.stdout + r.stderr)
    print(f"{'ok' if r.returncode == 0 else 'FAIL'}   exec round trip (examples/rmsnorm.py): {line.split(': ', 1)[-1]}")
    return 0 if r.returncode == 0 else 1

if __name__ == "__main__":
    sys.exit(main())
