#!/usr/bin/python3
"""Checks the expert-library baselines against the NumPy kernels they stand in for.

For each kernel (all of bench/kernels, or those named), builds bench/baselines/<kernel>.cpp with
build.sh, runs it on seeded standard-normal float32 inputs at the kernel's SIZES["test"] and at
odd sizes (small primes; the test sizes bumped to the next prime; and to the next prime above
4x, so vector tails and cache blocks are crossed), and compares with the NumPy function
evaluated in float64: rtol 1e-4, atol 1e-5 x the reduction length, as Axon validates. Prints
one line per kernel; exits 1 if any disagrees.

    /usr/bin/python3 bench/baselines/check.py [--time] [kernel ...]

--time also checks each at SIZES["bench"], then prints the median ms of 10 calls there after 3
warm-ups (in this process; the harness runs each in its own).
"""
import argparse
import ctypes
import importlib.util
import inspect
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
KERNELS = HERE.parent / "kernels"

# The sizes each kernel reduces over (sums, maxima, scans, contractions); the atol of the
# comparison scales with the largest, like Axon's reduction length. Element-wise kernels: none.
REDUCED = {
    "add_rmsnorm": ["N"],
    "attention": ["T", "D"],
    "cumsum": ["N"],
    "gated_mlp": ["K"],
    "gqa": ["T", "D"],
    "layernorm": ["N"],
    "layernorm_matmul": ["K"],
    "lora": ["K", "R"],
    "matmul": ["K"],
    "ntrans": ["N"],
    "qknorm_gqa": ["T", "D"],
    "rmsnorm": ["N"],
    "rmsnorm_matmul": ["K"],
    "softmax": ["N"],
    "softmax_matmul": ["T"],
    "transpose_matmul": ["K"],
}

# Sizes that must be even (rope splits the head dimension in halves).
EVEN = {"rope": ["D"]}


def load_kernel(stem):
    path = KERNELS / f"{stem}.py"
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, stem), module.SIZES


def shape_of(annotation, sizes):
    inside = annotation[annotation.index("[") + 1:-1].strip()
    if not inside:
        return []
    return [sizes[d.strip()] if d.strip() in sizes else int(d) for d in inside.split(",")]


def next_prime(n):
    n += 1
    while any(n % p == 0 for p in range(2, int(n**0.5) + 1)):
        n += 1
    return n


def size_sets(stem, sizes):
    """The named size sets a kernel is checked at: SIZES["test"] and odd variants of it."""
    test = sizes["test"]
    names = list(sizes["bench"])
    small = [3, 5, 7, 11, 13, 17]
    sets = {
        "test": dict(test),
        "small primes": {n: small[i % len(small)] for i, n in enumerate(names)},
        "next prime": {n: next_prime(test[n]) for n in names},
        "next prime > 4x": {n: next_prime(4 * test[n]) for n in names},
    }
    if stem in REDUCED:
        # A long first reduction (4099 > 4096): rows longer than the baselines' blocks, and
        # attention split into several blocks of query rows.
        sets["long reduction"] = dict(sets["next prime > 4x"], **{REDUCED[stem][0]: 4099})
    for values in sets.values():
        for n in EVEN.get(stem, []):
            values[n] += values[n] % 2
    return sets


class Baseline:
    def __init__(self, so_path, fn, names):
        self.lib = ctypes.CDLL(str(so_path))
        self.lib.axon_baseline.restype = ctypes.c_int
        self.lib.axon_baseline.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.fn = fn
        self.names = names
        self.params = list(inspect.signature(fn).parameters.values())
        self.result = inspect.signature(fn).return_annotation

    def prepare(self, sizes, seed):
        """Inputs, the output array and the ctypes argument arrays for one size set."""
        rng = np.random.default_rng(seed)
        inputs = [np.ascontiguousarray(rng.standard_normal(shape_of(p.annotation, sizes)).astype(np.float32))
                  for p in self.params]
        out = np.full(shape_of(self.result, sizes), np.nan, dtype=np.float32)
        c_sizes = (ctypes.c_longlong * len(self.names))(*[sizes[n] for n in self.names])
        c_inputs = (ctypes.c_void_p * len(inputs))(*[a.ctypes.data for a in inputs])
        c_outputs = (ctypes.c_void_p * 1)(out.ctypes.data)
        return inputs, out, (c_sizes, c_inputs, c_outputs)

    def call(self, args):
        rc = self.lib.axon_baseline(*args)
        if rc != 0:
            raise RuntimeError(f"axon_baseline returned {rc}")


def compare(got, want, reduction):
    """The largest |got - want| / tolerance, and the index of the first element past it (or None)."""
    atol, rtol = 1e-5 * reduction, 1e-4
    tol = atol + rtol * np.abs(want)
    err = np.abs(got.astype(np.float64) - want)
    ratio = np.where(np.isfinite(err), err / tol, np.inf)
    worst = float(ratio.max()) if ratio.size else 0.0
    bad = np.argwhere(~(ratio <= 1.0))
    return worst, (tuple(bad[0]) if len(bad) else None)


def check(stem, baseline, sets):
    """Runs the baseline at each named size set; (ok, detail) for the first disagreement or all."""
    worst = 0.0
    for label, sizes in sets.items():
        inputs, out, args = baseline.prepare(sizes, seed=1)
        baseline.call(args)
        want = np.asarray(baseline.fn(*[a.astype(np.float64) for a in inputs]), dtype=np.float64)
        reduction = max([sizes[n] for n in REDUCED.get(stem, [])], default=1)
        ratio, bad = compare(out, want, reduction)
        worst = max(worst, ratio)
        if bad is not None:
            dims = ",".join(f"{n}={v}" for n, v in sizes.items())
            return False, (f"{label} ({dims}): element {bad} got {out[bad]!r}, expected {want[bad]!r} "
                           f"(error/tolerance {ratio:.3g})")
    return True, f"max error/tolerance {worst:.3f}"


def time_ms(baseline, sizes, warmups=3, reps=10):
    inputs, out, args = baseline.prepare(sizes, seed=0)  # the arrays must outlive the calls
    for _ in range(warmups):
        baseline.call(args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        baseline.call(args)
        times.append(time.perf_counter() - start)
    return float(np.median(times)) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time", action="store_true", help="also time each at SIZES['bench']")
    ap.add_argument("kernels", nargs="*", help="kernel names (default: every bench kernel)")
    args = ap.parse_args()
    stems = args.kernels or sorted(p.stem for p in KERNELS.glob("*.py"))

    failed = False
    with tempfile.TemporaryDirectory() as out_dir:
        built = subprocess.run([str(HERE / "build.sh"), out_dir, *stems], capture_output=True, text=True)
        if built.returncode != 0:
            sys.stderr.write(built.stderr)
        for stem in stems:
            so = pathlib.Path(out_dir) / f"{stem}.so"
            if not so.exists():
                print(f"{stem:18} FAIL did not build", flush=True)
                failed = True
                continue
            fn, sizes = load_kernel(stem)
            baseline = Baseline(so, fn, list(sizes["bench"]))
            sets = size_sets(stem, sizes)
            if args.time:
                sets["bench"] = dict(sizes["bench"])  # large outputs take the streaming-store paths
            try:
                ok, detail = check(stem, baseline, sets)
            except RuntimeError as e:
                ok, detail = False, str(e)
            failed |= not ok
            line = f"{stem:18} {'ok  ' if ok else 'FAIL'} {detail}"
            if args.time and ok:
                bench = ",".join(f"{n}={v}" for n, v in sizes["bench"].items())
                line += f" | bench {bench}: {time_ms(baseline, sizes['bench']):.3f} ms"
            print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
