#!/usr/bin/env python3
"""The trn1 benchmark (`axon bench --target trn1`): every kernel of bench/kernels at its bench
sizes, Axon's kernel against the naive proxy and the hand-written NKI kernels of bench/nki, with
the ablations, all timed by the same trn1 timing model (src/time) on the instruction traces the
NKI simulator (sim/nki) records. Nothing here ran on a Trainium: every time is simulated.

- axon, axon_no_algebra, axon_no_fusion, axon_default_tiling: `axon optimize --target trn1`
  with the full search and with each stage switched off; search.json gives the simulated time.
- naive: the search's own baseline (search.json "baselines"), a proxy for a compiler without
  Axon's search: one stage per op (a transpose too) through HBM, op-by-op lowering, transposes
  by element-strided DMA. It is not the Neuron compiler.
- hand: the fastest of the kernels of bench/nki written for the program (HAND below), run under
  the simulator on seeded inputs, checked against the program evaluated by NumPy in float64,
  then timed by `axon time` on its trace.

Writes <out>/trn1-<date>[-quick].{json,md}. Run under a Python with NumPy and the simulator's
requirements (the `.sim-venv` of scripts/sim-env.sh).
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The hand-written kernels for a bench kernel: (file in bench/nki, function). Each takes the
# program's parameters in the program's order; the fastest valid one is the "hand" contestant.
HAND = {
    "rmsnorm": [("rmsnorm", "rmsnorm"), ("rmsnorm", "rmsnorm_isa")],
    "layernorm": [("layernorm", "layernorm_v1"), ("layernorm", "layernorm_v2")],
    "softmax": [("softmax", "softmax"), ("softmax", "softmax_isa")],
    "matmul": [("transpose_matmul", "matmul")],
    "transpose_matmul": [("transpose_matmul", "transpose_matmul")],
    "cumsum": [("cumsum", "cumsum")],
    "rope": [("rope", "rope")],
    "rmsnorm_matmul": [("rmsnorm_matmul", "rmsnorm_matmul")],
    "transpose": [("transpose", "transpose")],
}

ABLATIONS = {
    "axon_no_algebra": ["--no-algebra"],
    "axon_no_fusion": ["--no-fusion"],
    "axon_default_tiling": ["--default-tiling"],
}

# The paper's effects and the sizes at which it reports them.
EFFECTS = [
    ("silu", None, "naive", "SiLU at 4096 x 4096: 3.7x over the vendor compiler in the paper"),
    ("transpose_matmul", None, "naive", "transpose + matmul: 19x over the vendor compiler in the paper"),
    ("rmsnorm_matmul", "M=512,K=4096,N=4096", "naive",
     "RMSNorm + matmul at M = 512, the norm on the Scalar/Vector engines while the Tensor engine multiplies: "
     "1.47x in the paper"),
    ("cumsum", None, "hand", "cumsum against a hand-written kernel: up to 1.35x in the paper"),
    ("rope", None, "hand", "RoPE against a hand-written kernel: up to 1.35x in the paper"),
]


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_dims(text):
    return {k: int(v) for k, v in (item.split("=") for item in text.split(","))}


def optimize(args, kernel, dims, extra, out):
    """`axon optimize --target trn1`: (search.json, wall seconds) or (None, the error)."""
    cmd = [args.axon, "optimize", str(ROOT / "bench/kernels" / f"{kernel}.py"), "--target", "trn1",
           "--dims", dims, "-o", str(out), "--no-numpy", "--quiet"]
    cmd += ["--cache", args.cache] if args.cache else ["--no-cache"]
    if args.quick:
        cmd += ["--variants", "2", "--max-candidates", "4"]
    cmd += extra
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    if p.returncode != 0:
        lines = (p.stderr + p.stdout).strip().splitlines()
        said = [line.strip() for line in lines if "error" in line] or lines[-1:] or [f"exit {p.returncode}"]
        return None, said[:1]
    return json.loads((out / "search.json").read_text()), wall


def hand_time(args, kernel, dims, work):
    """The fastest valid hand-written kernel: (seconds, name, note) or (None, None, why)."""
    if kernel not in HAND:
        return None, None, "no hand-written kernel"
    program = load_module(ROOT / "bench/kernels" / f"{kernel}.py", f"program_{kernel}")
    fn = getattr(program, kernel)
    annotations = [a for n, a in fn.__annotations__.items() if n != "return"]
    rng = np.random.default_rng(args.seed)
    inputs = []
    for a in annotations:
        shape = [eval(s.strip(), {}, dict(dims)) for s in a[a.index("[") + 1:a.index("]")].split(",") if s.strip()]
        inputs.append(rng.standard_normal(shape).astype(np.float32))
    want = np.asarray(fn(*[x.astype(np.float64) for x in inputs]))
    work.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, x in enumerate(inputs):
        paths.append(str(work / f"in{i}.npy"))
        np.save(paths[-1], x)
    best, notes = None, []
    for module, entry in HAND[kernel]:
        trace, out = work / f"{entry}.jsonl", work / f"{entry}.out.npy"
        p = subprocess.run([sys.executable, str(ROOT / "sim/nki/axon_nki_run.py"), "--kernel",
                            str(ROOT / "bench/nki" / f"{module}.py"), "--entry", entry, "--inputs", ",".join(paths),
                            "--outputs", str(out), "--trace", str(trace)], capture_output=True, text=True)
        if p.returncode != 0:
            notes.append(f"{entry}: the simulator rejected it: {p.stderr.strip().splitlines()[-1:]}")
            continue
        got = np.load(out).astype(np.float64)
        error = np.abs(got - want).max() / max(np.abs(want).max(), 1e-30)
        if got.shape != want.shape or not error <= 1e-3:
            notes.append(f"{entry}: wrong result (relative error {error:.3g})")
            continue
        t = subprocess.run([args.axon, "time", str(trace), "--json"], capture_output=True, text=True)
        if t.returncode != 0:
            notes.append(f"{entry}: the timing model failed: {t.stderr.strip()}")
            continue
        seconds = json.loads(t.stdout)["total_ns"] * 1e-9
        if best is None or seconds < best[0]:
            best = (seconds, entry)
    if best is None:
        return None, None, "; ".join(notes)
    return best[0], best[1], "; ".join(notes)


def host():
    """The machine that ran the simulation (which does not change a simulated time)."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip() + f", {os.cpu_count()} cores"
    except OSError:
        pass
    return os.uname().machine


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def bench_kernel(args, kernel, dims_text):
    work = pathlib.Path(args.work) / kernel
    shutil.rmtree(work, ignore_errors=True)
    row = {"kernel": kernel, "sizes": dims_text, "seconds": {}, "notes": []}
    configs = {"axon": []} if args.quick else {"axon": [], **ABLATIONS}
    for name, extra in configs.items():
        j, wall = optimize(args, kernel, dims_text, extra, work / name)
        if j is None:
            row["notes"].append(f"{name}: {wall[0] if wall else 'failed'}")
            continue
        row["seconds"][name] = j["median_seconds"]
        if name == "axon":
            row["optimize_seconds"] = wall
            row["chosen"] = j["chosen"]
            naive = j.get("baselines", {}).get("naive", {})
            if "seconds" in naive:
                row["seconds"]["naive"] = naive["seconds"]
            else:
                row["notes"].append(f"naive: {naive.get('not_measured', 'not timed')}")
    dims = parse_dims(dims_text)
    seconds, entry, note = hand_time(args, kernel, dims, work / "hand")
    if seconds is not None:
        row["seconds"]["hand"] = seconds
        row["hand_kernel"] = entry
    if note:
        row["notes"].append(f"hand: {note}")
    axon = row["seconds"].get("axon")
    row["speedup"] = {k: v / axon for k, v in row["seconds"].items() if axon and k != "axon" and v}
    return row


def kernel_sizes(kernel, preset):
    sizes = load_module(ROOT / "bench/kernels" / f"{kernel}.py", f"sizes_{kernel}").SIZES[preset]
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:.4g}"


def markdown(result):
    lines = [f"# trn1 benchmark ({'quick' if result['quick'] else 'full'}), {result['date']}", "",
             "Every time is **simulated** by Axon's trn1 timing model (one NeuronCore-v2, parameters in "
             "hw/trn1.json) on the instruction trace of the NKI simulator; nothing ran on a Trainium. "
             "`naive` is a proxy for a compiler without Axon's search (one stage per op, a transpose too, through HBM, op-by-op "
             "lowering, transposes by element-strided DMA), not the Neuron compiler. `hand` is the fastest of "
             "our hand-written NKI kernels in bench/nki for that program.", "",
             f"Host: {result['host']}. Axon optimize options: {result['optimize_options']}.", ""]
    cols = ["axon", "naive", "hand"] + ([] if result["quick"] else list(ABLATIONS))
    lines.append("| kernel | sizes | " + " | ".join(f"{c} ms" for c in cols) +
                 " | vs naive | vs hand | optimize s |")
    lines.append("|---" * (len(cols) + 5) + "|")
    for r in result["kernels"]:
        s, sp = r["seconds"], r["speedup"]
        ratio = {k: f"{v:.3g}x" for k, v in sp.items()}
        wall = f"{r['optimize_seconds']:.0f}" if "optimize_seconds" in r else "-"
        lines.append(f"| {r['kernel']} | {r['sizes']} | " + " | ".join(ms(s.get(c)) for c in cols) +
                     f" | {ratio.get('naive', '-')} | {ratio.get('hand', '-')} | {wall} |")
    g = result["geomean"]
    lines += ["", "Geometric means of Axon's speed-up (higher is better): "
              + ", ".join(f"over {k} {v:.3g}x ({result['geomean_count'][k]} kernels)" for k, v in g.items() if v), ""]
    if result["effects"]:
        lines += ["## The paper's effects, as far as the model shows them", ""]
        for e in result["effects"]:
            lines.append(f"- {e['what']}: " + (f"**{e['speedup']:.3g}x** over {e['against']} at {e['sizes']}"
                                               if e.get("speedup") else f"not measured ({e.get('why', '')})"))
        lines.append("")
    notes = [f"- {r['kernel']}: {n}" for r in result["kernels"] for n in r["notes"]]
    if notes:
        lines += ["## Notes", ""] + notes + [""]
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--axon", required=True)
    parser.add_argument("--out", default=str(ROOT / "bench/results"))
    parser.add_argument("--work", default=str(ROOT / "build/bench-work-trn1"))
    parser.add_argument("--preset", default="bench")
    parser.add_argument("--dims")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-effects", action="store_true")
    parser.add_argument("kernels", nargs="*")
    args = parser.parse_args(argv)
    kernels = args.kernels or sorted(p.stem for p in (ROOT / "bench/kernels").glob("*.py"))
    if args.dims and len(kernels) != 1:
        parser.error("--dims needs exactly one kernel")
    result = {"target": "trn1", "timing": "simulated", "quick": args.quick,
              "date": datetime.date.today().isoformat(), "host": host(),
              "optimize_options": "--variants 2 --max-candidates 4" if args.quick else "defaults",
              "kernels": [], "effects": []}
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"trn1-{result['date']}{'-quick' if args.quick else ''}"
    for kernel in kernels:
        dims = args.dims or kernel_sizes(kernel, args.preset)
        print(f"trn1 bench: {kernel} at {dims}", flush=True)
        row = bench_kernel(args, kernel, dims)
        print("  " + ", ".join(f"{k} {ms(v)} ms" for k, v in row["seconds"].items()), flush=True)
        result["kernels"].append(row)
        # What is done so far, so that an interrupted run keeps it.
        stem.with_suffix(".partial.json").write_text(json.dumps(result, indent=2) + "\n")
    result["geomean"], result["geomean_count"] = {}, {}
    for against in ["naive", "hand"] + ([] if args.quick else list(ABLATIONS)):
        values = [r["speedup"][against] for r in result["kernels"] if against in r["speedup"]]
        result["geomean"][against] = geomean(values)
        result["geomean_count"][against] = len(values)
    if not args.no_effects and not args.dims:
        done = {r["kernel"]: r for r in result["kernels"]}
        for kernel, sizes, against, what in EFFECTS:
            if kernel not in done:
                continue
            row = done[kernel] if sizes is None else bench_kernel(args, kernel, sizes)
            e = {"kernel": kernel, "sizes": row["sizes"], "against": against, "what": what}
            if against in row["speedup"]:
                e["speedup"] = row["speedup"][against]
            else:
                e["why"] = "; ".join(row["notes"]) or f"no {against} time"
            result["effects"].append(e)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    stem.with_suffix(".md").write_text(markdown(result))
    stem.with_suffix(".partial.json").unlink(missing_ok=True)
    print(f"wrote {stem}.json and {stem}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
