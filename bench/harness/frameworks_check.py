"""Self-test of the peer contestants (frameworks.py behind py_worker.py).

For each bench kernel at its SIZES["test"] and each contestant, starts py_worker.py
the way the benchmark driver does (the venv's Python, the contestant's environment),
waits for `ready`, sends `time 5`, and checks that

  - the result the worker wrote matches the kernel's NumPy function evaluated in
    float64: |got - want| <= atol + rtol |want| with rtol = 1e-4 and
    atol = 1e-5 x the reduction length (the product of the input sizes the result
    folds away, or, when there are none, the result's last size: the norms,
    softmaxes and scans here all work along the last axis);
  - the 5 times are positive and finite.

Prints one row per kernel (per contestant: the largest error as a share of its
tolerance, and the worker's setup seconds) and exits 1 on any failure.

    .bench-venv/bin/python bench/harness/frameworks_check.py [--contestants numpy,jax] [kernel ...]

torch.compile and jax.jit keep their compiled code in caches inside the venv, so the
first run after creating the venv is the slow one.
"""
import argparse
import concurrent.futures
import inspect
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import frameworks  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
RTOL = 1e-4
ATOL_PER_TERM = 1e-5
TIMED_CALLS = 5


def size_names(annotation):
    m = re.fullmatch(r"\s*f32\[(.*)\]\s*", annotation)
    return [s.strip() for s in m.group(1).split(",") if s.strip()] if m else []


class Kernel:
    """One kernel file at its test sizes: inputs on disk, float64 reference."""

    def __init__(self, path, directory):
        self.path = path
        self.name = path.stem
        module = frameworks.load_kernel(path)
        fn = getattr(module, self.name)
        self.sizes = module.SIZES["test"]
        self.dims = ",".join(f"{k}={v}" for k, v in self.sizes.items())
        self.directory = directory
        directory.mkdir()
        rng = np.random.default_rng(0)
        params = list(inspect.signature(fn).parameters.values())
        inputs = []
        for i, p in enumerate(params):
            shape = [self.sizes[s] if s in self.sizes else int(s) for s in size_names(p.annotation)]
            inputs.append(rng.standard_normal(shape).astype(np.float32))
            np.save(directory / f"in{i}.npy", inputs[-1])
        self.want = np.asarray(fn(*[a.astype(np.float64) for a in inputs]), dtype=np.float64)
        folded = {s for p in params for s in size_names(p.annotation)} - set(size_names(fn.__annotations__["return"]))
        reduction = math.prod(self.sizes[s] for s in folded) if folded else self.want.shape[-1]
        self.atol = ATOL_PER_TERM * reduction


class Outcome:
    def __init__(self, ok, cell, message=""):
        self.ok, self.cell, self.message = ok, cell, message


def run_worker(python, kernel, contestant, timeout):
    """Starts one worker, checks its result and times; returns an Outcome."""
    env = {**os.environ, **frameworks.environment(contestant)}
    cmd = [str(python), str(HERE / "py_worker.py"), "--kernel", str(kernel.path), "--dims", kernel.dims,
           "--inputs", str(kernel.directory), "--contestant", contestant]
    with tempfile.TemporaryFile(mode="w+") as stderr:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                env=env)
        timed_out = threading.Event()

        def kill_on_timeout():
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout, kill_on_timeout)
        timer.start()
        ready, reply = [], []
        try:
            ready = proc.stdout.readline().split()
            if ready[:1] == ["ready"]:
                proc.stdin.write(f"time {TIMED_CALLS}\n")
                proc.stdin.flush()
                reply = proc.stdout.readline().split()
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            status = proc.wait()
        except OSError as e:  # a broken pipe: the worker died
            reply, status = [f"(pipe: {e})"], proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if ready[:1] != ["ready"]:
            bad = ready
        elif reply[:1] != ["times"] or len(reply) != TIMED_CALLS + 1:
            bad = reply
        elif status != 0:
            bad = []
        else:
            bad = None
        if bad is not None:
            return failure(" ".join(bad), status, timeout if timed_out.is_set() else None, stderr)
    return check_result(kernel, contestant, float(ready[1]), [float(t) for t in reply[1:]])


def failure(line, status, timed_out_after, stderr):
    """What went wrong with a worker: its `error` line (or the unexpected line, or
    its exit status) and the tail of its stderr."""
    detail = line[len("error "):] if line.startswith("error ") else \
        f"unexpected reply '{line[:200]}'" if line else f"exit status {status}"
    if timed_out_after is not None:
        detail += f" (killed: no answer within --timeout {timed_out_after:g} s)"
    elif status < 0:
        detail += f" (killed by signal {-status} from outside this check)"
    stderr.seek(0)
    tail = [line.rstrip() for line in stderr.read().splitlines() if line.strip()][-5:]
    return Outcome(False, "FAIL", detail + "".join(f"\n      stderr: {t}" for t in tail))


def check_result(kernel, contestant, setup, times):
    if not all(math.isfinite(t) and t > 0 for t in times):
        return Outcome(False, "FAIL", f"bad times {times}")
    got = np.load(kernel.directory / f"out-{contestant}.npy")
    if got.dtype != np.float32 or got.shape != kernel.want.shape:
        return Outcome(False, "FAIL", f"result {got.dtype}{list(got.shape)}, want float32{list(kernel.want.shape)}")
    error = np.abs(got.astype(np.float64) - kernel.want)
    share = float(np.max(error / (kernel.atol + RTOL * np.abs(kernel.want)), initial=0.0))
    if not share <= 1.0:  # also catches NaN
        worst = np.unravel_index(np.nanargmax(error), error.shape) if np.isfinite(error).any() else ()
        return Outcome(False, f"FAIL {share:.3g}",
                       f"max error {np.nanmax(error):.3g} at {list(worst)} (atol {kernel.atol:.3g}, rtol {RTOL})")
    return Outcome(True, f"ok {share:.2f} {setup:.1f}s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernels", nargs="*", help="kernel names or files (default: every bench/kernels/*.py)")
    ap.add_argument("--contestants", default=",".join(frameworks.CONTESTANTS), help="comma-separated")
    ap.add_argument("--python", type=pathlib.Path, default=frameworks.venv_dir() / "bin" / "python",
                    help="the workers' interpreter (default: the bench venv's)")
    ap.add_argument("--jobs", type=int, default=frameworks.THREADS, help="workers running at once")
    ap.add_argument("--timeout", type=float, default=600, help="seconds one worker may take")
    args = ap.parse_args()

    contestants = [c for c in args.contestants.split(",") if c]
    unknown = [c for c in contestants if c not in frameworks.CONTESTANTS]
    if unknown:
        ap.error(f"unknown contestant(s) {', '.join(unknown)}; expected {', '.join(frameworks.CONTESTANTS)}")
    paths = [pathlib.Path(k) if k.endswith(".py") else frameworks.kernel_path(k) for k in args.kernels]
    paths = paths or sorted(frameworks.KERNELS.glob("*.py"))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        ap.error(f"no such kernel: {', '.join(missing)}")
    if not args.python.exists():
        sys.exit(f"frameworks_check: no interpreter at {args.python}; run scripts/bench-env.sh first")

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="axon-frameworks-check-") as tmp:
        kernels = [Kernel(p, pathlib.Path(tmp) / p.stem) for p in paths]
        # The compiling contestants first, so the slow workers do not finish last.
        order = sorted(contestants, key=lambda c: c not in ("torch_compile", "jax"))
        tasks = [(k, c) for c in order for k in kernels]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {(k.name, c): pool.submit(run_worker, args.python, k, c, args.timeout) for k, c in tasks}
        outcomes = {key: f.result() for key, f in futures.items()}

    width = max(len("kernel"), *(len(k.name) for k in kernels))
    print(f"{'kernel':<{width}}  " + "  ".join(f"{c:<17}" for c in contestants))
    for k in kernels:
        print(f"{k.name:<{width}}  " + "  ".join(f"{outcomes[k.name, c].cell:<17}" for c in contestants))
    failures = [(key, o) for key, o in outcomes.items() if not o.ok]
    for (name, contestant), o in failures:
        print(f"FAIL {name} {contestant}: {o.message}")
    print(f"cells: 'ok <largest error / tolerance> <worker setup seconds>'; rtol {RTOL}, "
          f"atol {ATOL_PER_TERM} x reduction length. {len(outcomes) - len(failures)}/{len(outcomes)} passed "
          f"in {time.perf_counter() - start:.0f} s with {args.jobs} jobs.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
