#!/usr/bin/env python3
"""Names that C would misread, and what `axon exec` trusts:
  1. kernels named after libc functions (memcpy, printf, exp) with parameters
     named int64_t, NULL, std, free, asm, log and a/o with umlauts (two
     distinct names) are optimized, compile, export only reserved names, keep
     the user's names in kernel.json and, run through `axon exec`, agree with
     `axon run`;
  2. `axon exec` refuses an edited kernel.json (naming the input and both
     shapes), an input of the wrong shape, and a kernel.so that is not a
     kernel (garbage, truncated, another library), each with exit status 1;
  3. a description whose name and summary hold quotes and `)axon"` is
     escaped where it is printed (the kernel compiles, kernel.json keeps the
     name), and one with a line break in its name is refused at load;
  4. `-o -out` in a fresh working directory is a folder, not an option.

    names_exec.py --axon build/axon
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
QUICK = ["--no-cache", "--quiet", "--variants", "1", "--max-candidates", "2", "--budget", "30"]

PROGRAMS = {
    "memcpy": '''import numpy as np

SIZES = {"test": {"M": 5, "N": 7}}

def memcpy(int64_t: "f32[M, N]", NULL: "f32[N]", std: "f32[M, N]", free: "f32[M, N]", asm: "f32[N]") -> "f32[M, N]":
    return np.exp(int64_t) * NULL + std * free - asm
''',
    "printf": '''import numpy as np

SIZES = {"test": {"M": 5, "N": 7}}

def printf(\u00e4: "f32[M, N]", \u00f6: "f32[M, N]") -> "f32[M, N]":
    return \u00e4 * 2.0 + np.sqrt(\u00f6 * \u00f6 + 1.0)
''',
    "exp": '''import numpy as np

SIZES = {"test": {"M": 3, "N": 9}}

def exp(log: "f32[M, N]", main: "f32[N]") -> "f32[M, N]":
    return np.exp(log) + main
''',
}


def run(cmd, cwd=None, timeout=600):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", cwd=cwd, timeout=timeout)


def defined_symbols(so):
    p = run(["nm", "-D", "--defined-only", str(so)])
    return {line.split()[-1] for line in p.stdout.splitlines() if len(line.split()) >= 3}


def check_program(axon, tmp, name, failures):
    """Optimizes PROGRAMS[name], then execs it on saved inputs and compares with `axon run`."""
    prog = tmp / f"{name}.py"
    prog.write_text(PROGRAMS[name])
    out = tmp / f"out_{name}"
    p = run([axon, "optimize", str(prog), "--dims", "test", "-o", str(out)] + QUICK)
    if p.returncode != 0:
        failures.append(f"{name}: optimize exit {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]}")
        return None
    info = json.loads((out / "kernel.json").read_text())
    if info.get("kernel") != name or info.get("symbol") != f"axon_k_{name}":
        failures.append(f"{name}: kernel.json kernel/symbol: {info.get('kernel')!r} {info.get('symbol')!r}")
    stray = {s for s in defined_symbols(out / "kernel.so") if not s.startswith("axon_")}
    if name in defined_symbols(out / "kernel.so") or stray:
        failures.append(f"{name}: kernel.so defines names outside axon_*: {sorted(stray)}")
    header = (out / "kernel.h").read_text()
    if f"int axon_k_{name}(" not in header:
        failures.append(f"{name}: kernel.h does not declare axon_k_{name}")
    rng = np.random.default_rng(7)
    ins, given = [], []
    for port in info["inputs"]:
        path = tmp / f"{name}_in{len(ins)}.npy"
        np.save(path, rng.standard_normal(port["shape"]).astype(np.float32))
        ins.append(f"{port['name']}={path}")
    names = [port["name"] for port in info["inputs"]]
    if len(set(names)) != len(names) or len({port["c_name"] for port in info["inputs"]}) != len(names):
        failures.append(f"{name}: parameter names or C names collide: {info['inputs']}")
    ref, got = tmp / f"{name}_ref.npy", tmp / f"{name}_got.npy"
    args = [a for i in ins for a in ("--in", i)]
    p = run([axon, "run", str(prog), "--dims", "test", "--out", str(ref)] + args)
    if p.returncode != 0:
        failures.append(f"{name}: run exit {p.returncode}: {p.stderr.strip()[-300:]}")
        return None
    p = run([axon, "exec", str(out), "--out", str(got)] + args)
    if p.returncode != 0:
        failures.append(f"{name}: exec exit {p.returncode}: {(p.stdout + p.stderr).strip()[-300:]}")
        return None
    want, have = np.load(ref), np.load(got)
    if have.shape != want.shape or not np.allclose(have, want, rtol=1e-4, atol=1e-4):
        failures.append(f"{name}: exec differs from run: max error {np.max(np.abs(have - want))}")
    return out, args


def expect_refusal(axon, folder, args, want, label, failures):
    p = run([axon, "exec", str(folder)] + args)
    if p.returncode != 1 or want not in p.stderr or "error: " not in p.stderr:
        failures.append(f"{label}: expected exit 1 and '{want}', got exit {p.returncode}: {p.stderr.strip()[-300:]}")


def check_exec_refusals(axon, tmp, out, args, failures):
    edited = tmp / "edited"
    shutil.copytree(out, edited)
    info = json.loads((edited / "kernel.json").read_text())
    info["inputs"][0]["shape"] = [1, 3]
    (edited / "kernel.json").write_text(json.dumps(info))
    expect_refusal(axon, edited, [], "input 0 'int64_t' has shape [1, 3] in kernel.json but [5, 7] in kernel.so",
                   "edited kernel.json", failures)
    info = json.loads((out / "kernel.json").read_text())
    info["symbol"] = "memcpy"
    (edited / "kernel.json").write_text(json.dumps(info))
    expect_refusal(axon, edited, [], "'symbol' is \"memcpy\" in kernel.json but \"axon_k_memcpy\" in kernel.so",
                   "edited symbol", failures)

    wrong = tmp / "wrong_shape.npy"
    np.save(wrong, np.zeros((5, 6), np.float32))
    expect_refusal(axon, out, ["--in", f"int64_t={wrong}"],
                   "input 'int64_t' has shape [5, 6] but the kernel was emitted for [5, 7]", "wrong .npy shape",
                   failures)

    so = (out / "kernel.so").read_bytes()
    other = tmp / "other.so"
    src = tmp / "other.cpp"
    src.write_text('extern "C" int axon_kernel_packed(const float* const*, float* const*) { return 0; }\n')
    run(["g++", "-shared", "-fPIC", "-o", str(other), str(src)])
    for label, contents, want in (("garbage", b"not a library" * 10, "dlopen: "),
                                  ("truncated", so[:len(so) // 3], "is not a kernel library written by axon optimize"),
                                  ("other library", other.read_bytes(), "does not export axon_kernel_info")):
        bad = tmp / f"bad_{label.replace(' ', '_')}"
        shutil.copytree(out, bad)
        (bad / "kernel.so").write_bytes(contents)
        expect_refusal(axon, bad, [], want, label, failures)


def check_description_strings(axon, tmp, failures):
    hw = tmp / "hw"
    hw.mkdir()
    shutil.copy(ROOT / "hw" / "x86-avx2-prelude.h", hw)
    base = json.loads((ROOT / "hw" / "x86-avx2.json").read_text())
    prog = tmp / "scale.py"
    prog.write_text('import numpy as np\n\ndef scale(x: "f32[4, 9]") -> "f32[4, 9]":\n    return x * 3.0 + 1.0\n')

    tricky = dict(base, name='avx2 )axon" "x" \\', summary='quotes " and )axon" and */ and \\ ??/ end')
    (hw / "tricky.json").write_text(json.dumps(tricky))
    out = tmp / "out_tricky"
    p = run([axon, "optimize", str(prog), "-o", str(out), "--target", str(hw / "tricky.json")] + QUICK)
    if p.returncode != 0:
        failures.append(f"tricky description: optimize exit {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]}")
    else:
        try:
            target = json.loads((out / "kernel.json").read_text()).get("target")
        except ValueError as e:
            target = f"(kernel.json is not JSON: {e})"
        if target != tricky["name"]:
            failures.append(f"tricky description: kernel.json has target {target!r}, not {tricky['name']!r}")
        p = run([axon, "exec", str(out)])
        if p.returncode != 0:
            failures.append(f"tricky description: exec exit {p.returncode}: {p.stderr.strip()[-300:]}")

    for field in ("name", "summary"):
        broken = dict(base, **{field: "avx2\n#error broken"})
        path = hw / f"newline_{field}.json"
        path.write_text(json.dumps(broken, indent=1))
        for cmd in (["hw", str(path)], ["optimize", str(prog), "-o", str(tmp / "never"), "--target", str(path)] + QUICK):
            p = run([axon] + cmd)
            want = f"{path}:"
            if p.returncode != 1 or want not in p.stderr or "contains the control character U+000A" not in p.stderr:
                failures.append(f"newline in {field} ({cmd[0]}): expected exit 1 at {want}, got exit {p.returncode}: "
                                f"{p.stderr.strip()[-300:]}")


def check_dash_folder(axon, tmp, failures):
    cwd = tmp / "cwd"
    cwd.mkdir()
    shutil.copy(ROOT / "examples" / "rmsnorm.py", cwd)
    p = run([axon, "optimize", "rmsnorm.py", "--dims", "test", "-o", "-out"] + QUICK, cwd=cwd)
    if p.returncode != 0 or not (cwd / "-out" / "kernel.so").exists():
        failures.append(f"-o -out: exit {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]}")
        return
    p = run([axon, "exec", "./-out"], cwd=cwd)
    if p.returncode != 0:
        failures.append(f"exec ./-out: exit {p.returncode}: {p.stderr.strip()[-300:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    args = ap.parse_args()
    axon = os.path.abspath(args.axon)
    failures = []
    with tempfile.TemporaryDirectory() as name:
        tmp = pathlib.Path(name)
        results = {n: check_program(axon, tmp, n, failures) for n in PROGRAMS}
        if results["memcpy"]:
            check_exec_refusals(axon, tmp, results["memcpy"][0], results["memcpy"][1], failures)
        check_description_strings(axon, tmp, failures)
        check_dash_folder(axon, tmp, failures)
    for f in failures:
        print("FAIL:", f)
    print("names_exec:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
