#!/usr/bin/env python3
"""A quick side-by-side: each bench kernel at its bench sizes, the kernel that
`axon optimize` chose (its own median, measured in a child process) against the
same NumPy function under this interpreter (median of repeated calls, float32
inputs). Not the benchmark harness: one machine, one run, no baselines beyond
NumPy. Prints a Markdown table.

    /usr/bin/python3 bench/quick_compare.py --axon build/axon [--variants 2] [kernel.py ...]
"""
import argparse
import importlib.util
import inspect
import pathlib
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def numpy_median_ms(path, reps):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, path.stem)
    sizes = module.SIZES["bench"]
    rng = np.random.default_rng(0)
    args = []
    for p in inspect.signature(fn).parameters.values():
        inside = p.annotation[p.annotation.index("[") + 1:-1].strip()
        shape = [sizes[d.strip()] if d.strip() in sizes else int(d) for d in inside.split(",")] if inside else []
        args.append(rng.standard_normal(shape).astype(np.float32))
    fn(*args)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return float(np.median(times)) * 1e3, sizes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--variants", type=int, default=2)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    kernels = [pathlib.Path(k) for k in args.kernels] or sorted((ROOT / "bench/kernels").glob("*.py"))
    print("| kernel | bench sizes | NumPy ms | axon ms | speed-up |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for k in kernels:
            np_ms, sizes = numpy_median_ms(k, args.reps)
            p = subprocess.run([args.axon, "optimize", str(k), "--dims", "bench", "-o", f"{tmp}/{k.stem}",
                                "--variants", str(args.variants), "--quiet"], capture_output=True, text=True)
            m = re.search(r"median ([0-9.]+) ms", p.stdout)
            dims = ",".join(f"{n}={v}" for n, v in sizes.items())
            if p.returncode != 0 or not m:
                print(f"| {k.stem} | {dims} | {np_ms:.2f} | failed: {(p.stdout + p.stderr).strip().splitlines()[-1][:80]} | - |",
                      flush=True)
                continue
            ax_ms = float(m.group(1))
            print(f"| {k.stem} | {dims} | {np_ms:.2f} | {ax_ms:.2f} | {np_ms / ax_ms:.2f}x |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
