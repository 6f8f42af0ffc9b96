#!/usr/bin/env python3
"""The benchmark driver: every bench kernel, Axon against the kernels a user
would otherwise use, measured side by side in one run on this machine.

For each kernel (bench/kernels/*.py) at its sizes:
  1. `axon optimize` searches (full search, then each ablation); its phase
     times and candidate counts come from OUT/search.json, and a second
     identical run gives the cache-hit time;
  2. one worker process per contestant loads the kernel on the same float32
     inputs: bench/harness/worker.cpp for Axon's kernels and the expert
     library (bench/baselines), bench/harness/py_worker.py for NumPy, PyTorch
     eager, torch.compile and JAX, each started in its own best environment;
  3. every contestant's first result is checked against the float64
     reference interpreter (`axon run`) before it is timed;
  4. timing rounds interleave the contestants (A B C … A B C …, the order
     rotated each round, an idle pause before each, --pause); each turn's
     first call warms the caches up and is not a sample; each figure is the
     median over all timed calls.
Writes bench/results/<machine>-<date>.{md,json,svg} (or --out DIR).

Run it through `axon bench` or `make bench`, which create the virtual
environment (scripts/bench-env.sh) and build the worker and baselines.
"""
import argparse
import datetime
import importlib.util
import inspect
import json
import math
import os
import pathlib
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import report  # noqa: E402  (bench/harness/report.py)

AXON_VARIANTS = {
    "axon": [],
    "axon_no_algebra": ["--no-algebra"],
    "axon_no_fusion": ["--no-fusion"],
    "axon_default_tiling": ["--default-tiling"],
    "axon_no_tuning": ["--no-tuning"],
}
PY_CONTESTANTS = ["numpy", "torch_eager", "torch_compile", "torch_max_autotune", "jax", "openvino"]
BASELINES = PY_CONTESTANTS + ["expert"]


class HarnessError(Exception):
    pass


# ---- kernels ------------------------------------------------------------------

def load_kernel(path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, getattr(module, path.stem)


def param_shapes(fn, sizes):
    shapes = []
    for p in inspect.signature(fn).parameters.values():
        inside = p.annotation[p.annotation.index("[") + 1:-1].strip()
        shapes.append([sizes[d.strip()] if d.strip() in sizes else int(d) for d in inside.split(",")]
                      if inside else [])
    return shapes


def parse_sizes(text):
    return {k: int(v) for k, v in (item.split("=") for item in text.split(",") if item)}


def dims_text(sizes):
    return ",".join(f"{k}={v}" for k, v in sizes.items())


# ---- processes ----------------------------------------------------------------

def run_timed(cmd, env=None, timeout=1800):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    return p, time.perf_counter() - t


class Worker:
    """One contestant behind the line protocol of worker.cpp / py_worker.py."""

    def __init__(self, name, cmd, env, log):
        self.name, self.cmd = name, cmd
        self.log = open(log, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     text=True, env=env, bufsize=1)
        self.setup_s = None

    def _line(self):
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise HarnessError(f"{self.name}: worker exited ({self.proc.returncode}); see {self.log.name}")
        if line.startswith("error "):
            raise HarnessError(f"{self.name}: {line[6:].strip()}")
        return line.strip()

    def ready(self):
        line = self._line()
        if not line.startswith("ready"):
            raise HarnessError(f"{self.name}: expected 'ready', got '{line[:80]}'")
        self.setup_s = float(line.split()[1])

    def time(self, n):
        self.proc.stdin.write(f"time {n}\n")
        self.proc.stdin.flush()
        line = self._line()
        if not line.startswith("times "):
            raise HarnessError(f"{self.name}: expected 'times', got '{line[:80]}'")
        return [float(t) for t in line.split()[1:]]

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.log.close()


# ---- checks -------------------------------------------------------------------

def check(got, want, reduction):
    """Axon's own validation rule: |got - want| <= 1e-5 * reduction + 1e-4 * |want|."""
    if got.shape != want.shape:
        return False, f"shape {got.shape}, expected {want.shape}", math.inf
    got = got.astype(np.float64)
    tol = 1e-5 * reduction + 1e-4 * np.abs(want)
    finite = np.isfinite(want)
    if not np.array_equal(np.isfinite(got), finite):
        return False, "non-finite values differ from the reference", math.inf
    err = np.abs(got - want)[finite] / tol[finite] if finite.any() else np.zeros(1)
    worst = float(err.max()) if err.size else 0.0
    return worst <= 1.0, ("" if worst <= 1.0 else f"error {worst:.3g}x the tolerance"), worst


def machine_limits(worker_bin):
    p = subprocess.run([worker_bin, "--limits"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise HarnessError(f"limits: {p.stdout.strip()} {p.stderr.strip()}")
    return json.loads(p.stdout)


# ---- one kernel ---------------------------------------------------------------

def optimize(args, path, preset_or_dims, out, flags):
    # --no-numpy: the harness times NumPy itself, side by side with the others.
    cmd = [args.axon, "optimize", str(path), "--dims", preset_or_dims, "-o", str(out), "--quiet", "--no-numpy",
           "--variants", str(args.variants)] + flags + (["--cache", args.cache] if args.cache else [])
    p, seconds = run_timed(cmd)
    if p.returncode != 0:
        raise HarnessError(f"axon optimize {' '.join(flags)} failed: {(p.stdout + p.stderr).strip()[-300:]}")
    search = json.loads((out / "search.json").read_text())
    search["wall_seconds"] = seconds
    return search


# The waiting policy of every OpenMP contestant (torch's and the expert
# library's are set in their environments): threads that sleep when idle
# rather than spin, so that none holds a core the next contestant needs.
AXON_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


def contestant_env(name, frameworks, expert_env):
    env = dict(os.environ)
    if name in PY_CONTESTANTS:
        env.update(frameworks.environment(name))
    elif name == "expert":
        env.update(expert_env)
    elif name in AXON_VARIANTS:
        env.update(AXON_ENV)
    return env


def bench_kernel(args, path, limits, frameworks, expert_env, work):
    module, fn = load_kernel(path)
    sizes = parse_sizes(args.dims) if args.dims else module.SIZES[args.preset]
    kdir = work / path.stem
    if kdir.exists():
        shutil.rmtree(kdir)
    (kdir / "inputs").mkdir(parents=True)
    result = {"kernel": path.stem, "sizes": sizes, "contestants": {}}
    print(f"{path.stem} at {dims_text(sizes)}", flush=True)

    # The search, its ablations, and a cache-hit re-run of the full search.
    searches = {}
    for name in args.contestants:
        if name in AXON_VARIANTS:
            searches[name] = optimize(args, path, dims_text(sizes), kdir / name, AXON_VARIANTS[name])
            print(f"  {name}: searched in {searches[name]['wall_seconds']:.1f} s", flush=True)
    if "axon" in searches:
        rerun = optimize(args, path, dims_text(sizes), kdir / "axon-rerun", [])
        result["rerun_seconds"] = rerun["wall_seconds"]
        result["rerun_cache"] = rerun.get("cache", "none")
    main = searches.get("axon") or next(iter(searches.values()), None)
    if main:
        result.update({k: main[k] for k in ("family", "flops", "bytes", "reduction")})
        result["search"] = {k: {kk: v[kk] for kk in ("candidates", "phase_seconds", "wall_seconds")}
                            for k, v in searches.items()}

    # Identical inputs for everyone; the float64 reference.
    rng = np.random.default_rng(args.seed)
    shapes = param_shapes(fn, sizes)
    names = list(inspect.signature(fn).parameters)
    ins = []
    for i, shape in enumerate(shapes):
        a = rng.standard_normal(shape).astype(np.float32)
        np.save(kdir / "inputs" / f"in{i}.npy", a)
        ins.append(f"{names[i]}={kdir / 'inputs' / f'in{i}.npy'}")
    ret = inspect.signature(fn).return_annotation
    inside = ret[ret.index("[") + 1:-1].strip()
    out_shape = ",".join(str(sizes[d.strip()] if d.strip() in sizes else int(d)) for d in inside.split(",")) \
        if inside else "1"

    # Start every contestant at once (their set-up overlaps the reference's
    # computation; nothing is timed until all are ready), then check each
    # one's first result and time them in rounds.
    pending = []
    size_list = ",".join(str(sizes[k]) for k in module.SIZES["bench"])  # the baselines' size order
    for name in args.contestants:
        entry = {"status": "not run"}
        result["contestants"][name] = entry
        log = kdir / f"{name}.log"
        if name in AXON_VARIANTS:
            cmd = [args.worker, "--so", str(kdir / name / "kernel.so"), "--abi", "axon", "--inputs",
                   str(kdir / "inputs"), "--out-shape", out_shape, "--contestant", name]
        elif name == "expert":
            so = pathlib.Path(args.baselines) / f"{path.stem}.so"
            if not so.exists():
                entry["status"] = "no baseline"
                continue
            cmd = [args.worker, "--so", str(so), "--abi", "baseline", "--inputs", str(kdir / "inputs"),
                   "--out-shape", out_shape, "--sizes", size_list, "--contestant", name]
        else:
            cmd = [sys.executable, str(HERE / "py_worker.py"), "--kernel", str(path), "--dims", dims_text(sizes),
                   "--inputs", str(kdir / "inputs"), "--contestant", name]
        pending.append(Worker(name, cmd, contestant_env(name, frameworks, expert_env), log))

    ref_path = kdir / "reference.npy"
    cmd = [args.axon, "run", str(path), "--dims", dims_text(sizes), "--out", str(ref_path)]
    for i in ins:
        cmd += ["--in", i]
    p, result["reference_seconds"] = run_timed(cmd)
    if p.returncode != 0:
        for w in pending:
            w.close()
        raise HarnessError(f"axon run (reference) failed: {(p.stdout + p.stderr).strip()[-300:]}")
    want = np.load(ref_path)
    reduction = result.get("reduction") or max(sizes.values())

    workers = []
    for w in pending:
        entry = result["contestants"][w.name]
        try:
            w.ready()
            got = np.load(kdir / "inputs" / f"out-{w.name}.npy")
            ok, why, worst = check(got, want, reduction)
            entry.update({"setup_seconds": w.setup_s, "max_error": worst})
            if not ok:
                entry["status"] = "wrong result: " + why
                w.close()
                continue
            entry["status"] = "ok"
            workers.append(w)
        except HarnessError as e:
            entry["status"] = str(e)[:300]
            w.close()
    try:
        batch = {}
        for w in workers:  # warm probe calls size each turn to about 20 ms
            t = min(w.time(3))
            batch[w.name] = max(1, min(50, int(0.02 / max(t, 1e-7))))
        times = {w.name: [] for w in workers}
        for r in range(args.rounds):
            order = workers[r % len(workers):] + workers[:r % len(workers)] if workers else []
            for w in order:
                # The threads the last contestant left spinning (OpenMP,
                # Eigen and oneDNN pools wait actively for a while after a
                # parallel region) would hold a core the next one needs.
                time.sleep(args.pause)
                # The turn's first call runs after another contestant has
                # evicted this one's data and translations from the caches and
                # TLBs: a warm-up, not a sample.
                times[w.name] += w.time(batch[w.name] + 1)[1:]
        for w in workers:
            t = times[w.name]
            result["contestants"][w.name].update({
                "median": statistics.median(t), "min": min(t), "max": max(t), "calls": len(t),
                "rounds": args.rounds, "times": t})
    except HarnessError as e:
        for w in workers:
            result["contestants"][w.name].setdefault("median", None)
        result["error"] = str(e)
    finally:
        for w in workers:
            w.close()
    line = "  " + ", ".join(f"{n} {c['median'] * 1e3:.3f} ms" if c.get("median") else f"{n}: {c['status'][:60]}"
                            for n, c in result["contestants"].items())
    print(line, flush=True)
    report.add_derived(result, limits)
    return result


# ---- configuration ------------------------------------------------------------

def versions(frameworks):
    v = {"python": platform.python_version(), "numpy": np.__version__}
    for mod in ("torch", "jax", "jaxlib", "openvino") if frameworks else ():
        try:
            p = subprocess.run([sys.executable, "-c", f"import {mod}; print(getattr({mod}, '__version__', None) "
                                f"or {mod}.get_version())"],
                               capture_output=True, text=True, timeout=120)
            v[mod] = p.stdout.strip() or "not importable"
        except subprocess.TimeoutExpired:
            v[mod] = "timed out"
    cxx = os.environ.get("AXON_CXX", "g++").split()
    p = subprocess.run(cxx + ["--version"], capture_output=True, text=True)
    v["compiler"] = p.stdout.splitlines()[0] if p.returncode == 0 else "unknown"
    for pkg in ("libdnnl2", "libopenblas0-pthread"):
        p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
        v[pkg] = p.stdout.strip() or "not installed"
    return v


def machine_name(limits):
    model = "cpu"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")
    return f"{slug}-{os.cpu_count()}c-{limits['vector']}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernels", nargs="*", help="kernel names or files (default: every bench/kernels/*.py)")
    ap.add_argument("--axon", required=True, help="the axon executable")
    ap.add_argument("--worker", required=True, help="the axon-bench-worker executable")
    ap.add_argument("--baselines", required=True, help="folder of the built expert baselines (<kernel>.so)")
    ap.add_argument("--expert-env", default="",
                    help="NAME=VALUE,... for the expert baseline's process (default: bench/baselines/environment)")
    ap.add_argument("--quick", action="store_true",
                    help="no ablations, 2 variants, 10 rounds: the whole suite in under 10 minutes")
    ap.add_argument("--preset", default="bench", help="the SIZES preset of each kernel (default bench)")
    ap.add_argument("--dims", default="", help="explicit sizes for a single kernel, e.g. M=64,N=64")
    ap.add_argument("--rounds", type=int, default=0, help="timing rounds (default 15, --quick 10)")
    ap.add_argument("--variants", type=int, default=0, help="variants per search (default 4, --quick 2)")
    ap.add_argument("--contestants", default="", help="comma-separated subset of the contestants")
    ap.add_argument("--pause", type=float, default=0.0,
                    help="seconds of idle before each contestant's timed calls, so that threads another "
                         "contestant left spinning are asleep (default 0: on a 2-core Xeon VM a 0.1 s pause "
                         "made every contestant slower, the expert library up to 1.8x)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default="", help="axon optimize --cache PATH (default: a fresh one in --work)")
    ap.add_argument("--work", default=str(ROOT / "build" / "bench-work"), help="scratch folder")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results"), help="where results are written")
    ap.add_argument("--json-only", action="store_true", help="write only the .json (for tests)")
    args = ap.parse_args()
    args.rounds = args.rounds or (10 if args.quick else 15)
    args.variants = args.variants or (2 if args.quick else 4)
    all_contestants = ["axon"] + ([] if args.quick else list(AXON_VARIANTS)[1:])
    all_contestants += BASELINES
    args.contestants = args.contestants.split(",") if args.contestants else all_contestants
    unknown = [c for c in args.contestants if c not in list(AXON_VARIANTS) + BASELINES]
    if unknown:
        ap.error(f"unknown contestant(s): {', '.join(unknown)}")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if not 0 <= args.pause <= 10:
        ap.error("--pause must be between 0 and 10 seconds")
    kernels = []
    for k in args.kernels or sorted(p.stem for p in (ROOT / "bench" / "kernels").glob("*.py")):
        p = pathlib.Path(k) if k.endswith(".py") else ROOT / "bench" / "kernels" / f"{k}.py"
        if not p.exists():
            ap.error(f"no kernel '{k}' ({p} does not exist)")
        kernels.append(p)
    if args.dims and len(kernels) != 1:
        ap.error("--dims needs exactly one kernel")
    expert_env = {}
    if not args.expert_env:  # bench/baselines/environment: NAME=VALUE lines, # comments
        for line in (ROOT / "bench" / "baselines" / "environment").read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                name, value = line.strip().split("=", 1)
                expert_env[name] = value
    else:
        expert_env = dict(kv.split("=", 1) for kv in args.expert_env.split(",") if kv)

    if any(c in PY_CONTESTANTS for c in args.contestants):
        import frameworks  # bench/harness/frameworks.py; torch and jax load only in the workers
    else:
        frameworks = None

    started = time.perf_counter()
    limits = machine_limits(args.worker)
    print(f"limits: FMA {limits['fma_gflops']:.0f} GFLOP/s, streaming copy {limits['copy_gbps']:.1f} GB/s "
          f"({limits['threads']} threads)", flush=True)
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    if not args.cache:  # a fresh cache, so the search costs are of real searches
        args.cache = str(work / "kernels.sqlite")
        for extra in ("", "-wal", "-shm"):
            pathlib.Path(args.cache + extra).unlink(missing_ok=True)
    results = []
    for path in kernels:
        try:
            results.append(bench_kernel(args, path, limits, frameworks, expert_env, work))
        except HarnessError as e:
            print(f"  {path.stem}: {e}", flush=True)
            results.append({"kernel": path.stem, "error": str(e), "contestants": {}})
    limits_after = machine_limits(args.worker)
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {
        "machine": machine_name(limits), "date": now.strftime("%Y-%m-%d"), "time": now.isoformat(timespec="seconds"),
        "command": " ".join(sys.argv), "quick": args.quick, "preset": args.preset, "rounds": args.rounds,
        "pause_seconds": args.pause,
        "variants": args.variants, "limits": limits, "limits_after": limits_after, "versions": versions(frameworks),
        "environments": {c: (frameworks.environment(c) if frameworks and c in PY_CONTESTANTS else
                             expert_env if c == "expert" else AXON_ENV) for c in args.contestants},
        "settings": {c: frameworks.describe(c) for c in PY_CONTESTANTS
                     if c in args.contestants and hasattr(frameworks, "describe")} if frameworks else {},
        "kernels": results, "wall_seconds": time.perf_counter() - started,
    }
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{doc['machine']}-{doc['date']}{'-quick' if args.quick else ''}"
    stem.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    written = [stem.with_suffix(".json")]
    if not args.json_only:
        stem.with_suffix(".svg").write_text(report.svg_chart(doc))
        stem.with_suffix(".md").write_text(report.markdown(doc, stem.with_suffix(".svg").name))
        written += [stem.with_suffix(".md"), stem.with_suffix(".svg")]
    print(f"wrote {', '.join(str(w) for w in written)} ({doc['wall_seconds'] / 60:.1f} min)")
    failed = [r["kernel"] for r in results if r.get("error")]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
