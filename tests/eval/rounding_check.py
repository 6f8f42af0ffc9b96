#!/usr/bin/env python3
"""The reference's rounding bound against real float32 arithmetic and real bugs.

For each program below, at its sizes (up to 4096 x 4096 element-wise and
normalization kernels, reductions 16,384 long, a LLaMA-style FFN at D=2048 and
hidden 5632, an RWKV-style channel mix, attention over 3,644-long rows):
  - NumPy evaluates the file in float32 on float32 inputs: `axon run --check`
    must find it within the bound (exit status 0);
  - mutants of the source text, each a real bug (an index off by one, a
    dropped term, a constant times 1.001, swapped operands, a wrong axis),
    evaluated the same way, must each be outside it (exit status 6).
One `axon run` per program checks all its arrays. Prints every array's largest
|error| / bound. --before AXON also prints the old criterion of axon optimize
(rtol 1e-4, atol 1e-5 x the longest reduction) for the NumPy float32 results,
from AXON's float64 reference.

usage: rounding_check.py --axon build/axon [--filter SUBSTR] [--quick] [--before /path/to/axon]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLL = "np.roll({}, 1, axis={})"

# (file, sizes, longest reduction (for --before), quick sizes, mutants: (class, old text, new text))
CASES = [
    ("bench/kernels/rmsnorm.py", "M=4096,N=4096", 4096, "M=64,N=1024", [
        ("index off by one", "x / rms * g", "x / rms * " + ROLL.format("g", 0)),
        ("dropped term", "np.mean(x * x, axis=-1", "np.mean(x[:, 1:] * x[:, 1:], axis=-1"),
        ("swapped operands", "x / rms * g", "rms / x * g"),
        ("wrong axis", "axis=-1", "axis=0"),
    ]),
    ("bench/kernels/layernorm.py", "M=4096,N=4096", 4096, "M=64,N=1024", [
        ("index off by one", "* g + b", "* g + " + ROLL.format("b", 0)),
        ("dropped term", "xc = x - mu", "xc = x"),
        ("swapped operands", "* g + b", "* b + g"),
        ("wrong axis", "mu = x.mean(axis=-1", "mu = x.mean(axis=0"),
    ]),
    ("bench/kernels/softmax.py", "M=4096,N=4096", 4096, "M=64,N=1024", [
        ("index off by one", "return e /", "return " + ROLL.format("e", -1) + " /"),
        ("dropped term", "e.sum(axis=-1", "e[:, 1:].sum(axis=-1"),
        ("swapped operands", "x - m", "m - x"),
        ("wrong axis", "e.sum(axis=-1", "e.sum(axis=0"),
    ]),
    ("bench/kernels/softmax.py", "M=64,N=16384", 16384, "M=8,N=4096", [
        ("dropped term", "e.sum(axis=-1", "e[:, 1:].sum(axis=-1"),
    ]),
    ("bench/kernels/gelu.py", "M=1024,N=4096", 1, "M=64,N=1024", [
        ("constant times 1.001", "0.044715", "0.044715 * 1.001"),
        ("constant times 1.001", "0.5 *", "0.5 * 1.001 *"),
        ("dropped term", "x + 0.044715 * x**3", "x"),
        ("index off by one", "0.5 * x *", "0.5 * " + ROLL.format("x", -1) + " *"),
        ("swapped operands", "2.0 / np.pi", "np.pi / 2.0"),
    ]),
    ("bench/kernels/silu.py", "M=1024,N=1024", 1, "M=64,N=256", [
        ("constant times 1.001", "1.0 + np.exp", "1.001 + np.exp"),
        ("index off by one", "x * sigmoid(x)", ROLL.format("x", -1) + " * sigmoid(x)"),
    ]),
    ("bench/kernels/matmul.py", "M=32,K=16384,N=64", 16384, "M=8,K=4096,N=16", [
        ("index off by one", "a @ b", "a @ " + ROLL.format("b", 0)),
        ("dropped term", "a @ b", "a[:, :-1] @ b[:-1, :]"),
    ]),
    ("bench/kernels/cumsum.py", "M=64,N=16384", 16384, "M=8,N=4096", [
        ("index off by one", "np.cumsum(x, axis=-1)", "np.cumsum(" + ROLL.format("x", -1) + ", axis=-1)"),
        ("dropped term", "np.cumsum(x, axis=-1)", "np.cumsum(x, axis=-1) - x"),
    ]),
    ("bench/kernels/attention.py", "H=4,S=64,T=3644,D=64", 3644, "H=2,S=16,T=911,D=32", [
        ("constant times 1.001", "np.sqrt(q.shape[-1])", "(np.sqrt(q.shape[-1]) * 1.001)"),
        ("index off by one", "@ v", "@ " + ROLL.format("v", -2)),
        ("dropped term", "e.sum(axis=-1", "e[..., 1:].sum(axis=-1"),
        ("wrong axis", "x.max(axis=-1", "x.max(axis=-2"),
    ]),
    ("bench/kernels/rope.py", "H=8,S=2048,D=128", 1, "H=2,S=64,D=32", [
        ("index off by one", "x1 = x[..., :half]", "x1 = x[..., 1 : half + 1]"),
        ("swapped operands", "[-x2, x1]", "[-x1, x2]"),
    ]),
    ("bench/kernels/add_rmsnorm.py", "M=1024,N=4096", 4096, "M=64,N=512", [
        ("dropped term", "rms_norm(x + r)", "rms_norm(x)"),
        ("index off by one", ") * g", ") * " + ROLL.format("g", 0)),
    ]),
    ("bench/kernels/layernorm_matmul.py", "M=16,K=2048,N=512", 2048, "M=4,K=256,N=64", [
        ("wrong axis", "var = np.mean((x - mu) ** 2, axis=-1", "var = np.mean((x - mu) ** 2, axis=0"),
        ("swapped operands", "* g + b", "* b + g"),
    ]),
    ("tests/eval/programs/llama_ffn.py", "M=8,D=2048,H=5632", 5632, "M=4,D=256,H=704", [
        ("constant times 1.001", "1.0 + np.exp", "1.001 + np.exp"),
        ("swapped operands", "silu(x @ w1) * (x @ w3)", "silu(x @ w3) * (x @ w1)"),
        ("index off by one", "h @ w2", "h @ " + ROLL.format("w2", 0)),
        ("dropped term", "h @ w2", "h[:, :-1] @ w2[:-1, :]"),
    ]),
    ("tests/eval/programs/rwkv_channel_mix.py", "M=8,D=2048,F=8192", 8192, "M=4,D=256,F=1024", [
        ("constant times 1.001", "xx * (1.0 - mk)", "xx * (1.001 - mk)"),
        ("swapped operands", "x * mr + xx * (1.0 - mr)", "xx * mr + x * (1.0 - mr)"),
        ("dropped term", "xr = x * mr + xx * (1.0 - mr)", "xr = x * mr"),
        ("index off by one", "(k @ wv)", "(k @ " + ROLL.format("wv", 0) + ")"),
    ]),
    ("tests/eval/programs/column_energy.py", "M=16384,N=256", 16384, "M=4096,N=64", [
        ("constant times 1.001", "0.5 *", "0.5 * 1.001 *"),
        ("dropped term", "np.sum(x * x, axis=0)", "np.sum(x[1:] * x[1:], axis=0)"),
    ]),
]


def entry_of(namespace, source):
    names = re.findall(r"^def (\w+)\(", source, re.M)
    return namespace[names[-1]]


def param_shapes(source, sizes):
    """The kernel's parameters (name, shape at `sizes`) from its annotations."""
    last = list(re.finditer(r"^def (\w+)\((.*)\)\s*(->.*)?:", source, re.M))[-1]
    params = []
    for m in re.finditer(r'(\w+)\s*:\s*"(\w+)\[([^\]]*)\]"', last.group(2)):
        dims = [d.strip() for d in m.group(3).split(",") if d.strip()]
        params.append((m.group(1), tuple(int(d) if d.isdigit() else sizes[d] for d in dims)))
    return params


def evaluate_f32(source, inputs):
    namespace = {"np": np}
    exec(compile(source, "<mutant>", "exec"), namespace)
    with np.errstate(all="ignore"):
        out = entry_of(namespace, source)(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    for o in outs:
        assert o.dtype == np.float32, f"NumPy computed in {o.dtype}, not float32"
    return outs


def run_case(axon, path, spec, mutants, tmp, before, longest):
    source = open(os.path.join(ROOT, path)).read()
    sizes = {k: int(v) for k, v in (item.split("=") for item in spec.split(","))}
    rng = np.random.default_rng(0)
    args = []
    inputs = []
    for i, (name, shape) in enumerate(param_shapes(source, sizes)):
        a = rng.standard_normal(shape, dtype=np.float32)
        f = os.path.join(tmp, f"in{i}.npy")
        np.save(f, a)
        inputs.append(a)
        args += ["--in", f"{name}={f}"]
    checks = []  # (label, expected within, files)
    arrays = {}

    def add(label, within, outs):
        files = []
        for k, o in enumerate(outs):
            f = os.path.join(tmp, f"got{len(checks)}_{k}.npy")
            np.save(f, o)
            files.append(f)
        checks.append((label, within, files))
        arrays[label] = outs

    add("numpy float32", True, evaluate_f32(source, inputs))
    for kind, old, new in mutants:
        count = source.count(old)
        assert count >= 1, f"{path}: mutant text '{old}' not found"
        at = source.rindex(old)  # the last: the kernel follows docstrings and helpers
        mutated = source[:at] + new + source[at + len(old):]
        add(f"{kind}: {old!r} -> {new!r}", False, evaluate_f32(mutated, inputs))
    cmd = [axon, "run", os.path.join(ROOT, path), "--dims", spec] + args
    for _, _, files in checks:
        cmd += ["--check", ",".join(files)]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    seconds = time.time() - t0
    lines = [l for l in r.stdout.splitlines() if l.startswith("check ")]
    failures = []
    if r.returncode not in (0, 6) or len(lines) != len(checks):
        return [f"{path} {spec}: axon run exited {r.returncode}: {r.stderr.strip()[-500:]}"], []
    rows = []
    for (label, within, _), line in zip(checks, lines):
        ratio = float(line.rsplit("=", 1)[1])
        ok = ("within" in line.split(":")[1]) == within
        rows.append((path, spec, label, within, ratio, ok))
        if not ok:
            failures.append(f"{path} {spec}: {label}: expected {'within' if within else 'outside'} the bound, "
                            f"got {line.strip()}")
    if r.returncode != (0 if all(w for _, w, _ in checks) else 6):
        failures.append(f"{path} {spec}: exit status {r.returncode}")
    old = ""
    if before:
        ref = os.path.join(tmp, "ref.npy")
        b = subprocess.run([before, "run", os.path.join(ROOT, path), "--dims", spec] + args + ["--out", ref],
                           capture_output=True, text=True, timeout=600)
        if b.returncode == 0:
            want = np.load(ref)
            got = arrays["numpy float32"][0].astype(np.float64)
            tol = 1e-5 * longest + 1e-4 * np.abs(want)
            old = f"; old criterion (rtol 1e-4, atol 1e-5 x {longest}): max error / tolerance {np.max(np.abs(got - want) / tol):.3g}"
    print(f"{path} at {spec} ({seconds:.1f} s){old}")
    for _, _, label, within, ratio, ok in rows:
        print(f"  {'ok  ' if ok else 'FAIL'} {ratio:10.3g}  {label}")
    sys.stdout.flush()
    return failures, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--filter", default="")
    ap.add_argument("--quick", action="store_true", help="small sizes (for sanitizer builds)")
    ap.add_argument("--before", help="an older axon, for its float64 reference and the old criterion")
    a = ap.parse_args()
    failures, rows = [], []
    print("largest |error| / bound per array (within: <= 1); NumPy float32 must be within, mutants outside")
    with tempfile.TemporaryDirectory() as tmp:
        for path, spec, longest, quick, mutants in CASES:
            if a.filter not in path:
                continue
            f, r = run_case(a.axon, path, quick if a.quick else spec, mutants, tmp, a.before, longest)
            failures += f
            rows += r
    honest = [r[4] for r in rows if r[3]]
    bugs = {}
    for r in rows:
        if not r[3]:
            bugs.setdefault(r[2].split(":")[0], []).append(r[4])
    if honest:
        print(f"numpy float32: {len(honest)} arrays, largest error / bound {max(honest):.3g}")
    for kind, ratios in sorted(bugs.items()):
        print(f"{kind}: {len(ratios)} mutants, smallest error / bound {min(ratios):.3g}")
    for f in failures:
        print("FAIL:", f)
    print("rounding_check:", "FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
