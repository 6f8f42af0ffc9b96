"""What one kernel call from Python costs: a tiny kernel (a + b over 16
floats, tests/python/kernels/add.py) called with contiguous float32 arrays,
next to NumPy's own a + b and an empty Python function on the same machine.

    build/python-venv/bin/python bench/python_call_overhead.py [--folder OUT/] [--n 16]

With --folder, an output folder of `axon optimize` for add.py is loaded
instead of searching one (the search uses the kernel cache). Prints medians
of 15 repeats of 100,000 calls each, in microseconds per call.
"""

import argparse
import os
import platform
import statistics
import timeit

import numpy as np

import axon

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "..", "tests", "python", "kernels", "add.py")


def per_call_us(stmt, number=100_000, repeat=15):
    times = timeit.repeat(stmt, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", help="an output folder for add.py (default: search one)")
    parser.add_argument("--n", type=int, default=16, help="the size N (default 16)")
    args = parser.parse_args()
    kernel = (axon.load(args.folder) if args.folder else
              axon.optimize(PROGRAM, {"N": args.n}, budget=20, max_candidates=2, variants=1))
    n = kernel.inputs[0]["shape"][0]
    a = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    np.testing.assert_allclose(kernel(a, b), a + b, rtol=1e-6)

    def empty(x, y):
        return None

    rows = [("axon kernel(a, b)", per_call_us(lambda: kernel(a, b))),
            ("numpy a + b", per_call_us(lambda: np.add(a, b))),
            ("empty Python function(a, b)", per_call_us(lambda: empty(a, b)))]
    strided = np.random.default_rng(2).standard_normal(2 * n).astype(np.float32)[::2]
    rows.append(("axon kernel(strided a, b): converted", per_call_us(lambda: kernel(strided, b), number=20_000)))
    print(f"CPU: {cpu_name()} ({os.cpu_count()} threads); Python {platform.python_version()}, "
          f"NumPy {np.__version__}; N={n}, float32, contiguous")
    for name, us in rows:
        print(f"  {name:40s} {us:8.3f} us/call")


if __name__ == "__main__":
    main()
