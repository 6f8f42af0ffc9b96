"""Every bench kernel, every tests/programs program and the trn1 cases of
tests/trn1/programs (column folds, a batched matmul with an epilogue, a
matrix-vector product, x.T @ x, rows of 20,000-40,000 elements, a flattened result),
emitted as NKI for trn1
and run under Axon's NKI simulator, against `axon run` (the float64 reference,
within its rounding bound), at the file's test sizes and at prime sizes.

Prime sizes: each size of the test preset becomes a distinct prime above twice
its value (33 -> 67, 65 -> 131), so partial tiles straddle the 128-partition
and 512-element tile bounds; a size the program constrains (an even head
dimension) keeps its test value when the primes are refused by `axon run`.

With --bench-sizes: every bench kernel is emitted at its bench sizes (not
run: the simulator would take minutes), and the instructions per engine and
the HBM traffic of each are printed.

With --quick (the reduced form `make test` runs): tests/programs at their test
sizes only; the bench kernels and tests/trn1/programs at both.

usage: check_programs.py AXON [--bench-sizes | --quick] [FILE.py ...]    (default: all of them; exit 1 on any failure)
"""
import ast
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_sizes(path):
    tree = ast.parse(open(path).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "SIZES" for t in node.targets):
            return ast.literal_eval(node.value).get("test", {})
    return {}


def is_prime(n):
    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))


def primes_for(sizes):
    used, out = set(), {}
    for name, value in sorted(sizes.items(), key=lambda kv: kv[1]):
        p = 2 * value + 1
        while not is_prime(p) or p in used:
            p += 1
        used.add(p)
        out[name] = p
    return out


def spec(sizes):
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def check(axon, path, dims, work):
    """None when the kernel matches the reference, else why not."""
    out = os.path.join(work, "kernel")
    r = run([axon, "lower", path, "--dims", dims, "--target", "trn1", "-o", out])
    if r.returncode != 0:
        return "lower: " + (r.stderr or r.stdout).strip().splitlines()[0]
    import json
    outputs = len(json.load(open(os.path.join(out, "kernel.json")))["outputs"])
    got = ",".join(os.path.join(work, f"got{i}.npy") for i in range(outputs))
    r = run([axon, "exec", out, "--out", got])
    if r.returncode != 0:
        return "exec: " + (r.stderr or r.stdout).strip()
    r = run([axon, "run", path, "--dims", dims, "--check", got])
    if r.returncode != 0:
        return "run --check: " + (r.stdout + r.stderr).strip()
    return None


def bench_sizes(axon):
    failures = 0
    kernels = sorted(f for f in os.listdir(os.path.join(ROOT, "bench", "kernels")) if f.endswith(".py"))
    print(f"{'kernel':18} {'tensor':>8} {'vector':>8} {'scalar':>8} {'gpsimd':>8} {'dma':>8} {'HBM MiB':>9}")
    for f in kernels:
        path = os.path.join(ROOT, "bench", "kernels", f)
        with tempfile.TemporaryDirectory(prefix="axon-trn1-") as work:
            r = run([axon, "lower", path, "--dims", "bench", "--target", "trn1", "-o", work])
            if r.returncode != 0:
                failures += 1
                print(f"FAIL {f}: " + (r.stderr or r.stdout).strip().splitlines()[0])
                continue
            import json
            info = json.load(open(os.path.join(work, "kernel.json")))
            n = info["instructions"]
            mib = (info["hbm_read_bytes"] + info["hbm_write_bytes"]) / 2**20
            print(f"{f[:-3]:18} {n.get('tensor', 0):8} {n.get('vector', 0):8} {n.get('scalar', 0):8} "
                  f"{n.get('gpsimd', 0):8} {n.get('dma', 0):8} {mib:9.1f}")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    if not os.access(sys.argv[1], os.X_OK):
        print(f"check_programs.py: error: {sys.argv[1]} is not an executable axon binary", file=sys.stderr)
        return 2
    axon = sys.argv[1]
    if "--bench-sizes" in sys.argv[2:]:
        return bench_sizes(axon)
    quick = "--quick" in sys.argv[2:]
    files = [a for a in sys.argv[2:] if a != "--quick"] or sorted(
        [os.path.join(ROOT, "bench", "kernels", f) for f in os.listdir(os.path.join(ROOT, "bench", "kernels")) if f.endswith(".py")]
        + [os.path.join(ROOT, "tests", "programs", f) for f in os.listdir(os.path.join(ROOT, "tests", "programs")) if f.endswith(".py")]
        + [os.path.join(ROOT, "tests", "trn1", "programs", f)
           for f in os.listdir(os.path.join(ROOT, "tests", "trn1", "programs")) if f.endswith(".py")])
    failures = 0
    for path in files:
        sizes = test_sizes(path)
        cases = [("test", "test")]
        corpus = os.path.dirname(os.path.abspath(path)) == os.path.join(ROOT, "tests", "programs")
        if sizes and not (quick and corpus):
            primes = primes_for(sizes)
            dims = spec(primes)
            if run([axon, "check", path, "--dims", dims]).returncode != 0 and run([axon, "run", path, "--dims", dims]).returncode != 0:
                for name in sizes:  # keep the constrained ones at their test value
                    trial = dict(primes, **{name: sizes[name]})
                    if run([axon, "run", path, "--dims", spec(trial)]).returncode == 0:
                        dims = spec(trial)
                        break
            cases.append(("prime", dims))
        for label, dims in cases:
            with tempfile.TemporaryDirectory(prefix="axon-trn1-") as work:
                why = check(axon, path, dims, work)
            name = os.path.relpath(path, ROOT)
            if why:
                failures += 1
                print(f"FAIL {name} [{label}: {dims}]\n    " + why.replace("\n", "\n    "), flush=True)
            else:
                print(f"ok   {name} [{label}: {dims}]", flush=True)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
