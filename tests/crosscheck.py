#!/usr/bin/python3
"""Cross-check Axon's float64 reference interpreter against NumPy.

Every Axon program is valid Python that also runs under real NumPy, so its meaning
can be checked against NumPy itself. For each program file this script:

  1. reads the file with `ast`: the kernel is the last top-level `def`, its
     parameters' string annotations ("f32[M, 4]", "bf16[]", ...) give the input
     shapes, and the module-level literal `SIZES = {"test": {...}, "bench": {...}}`
     gives the concrete sizes (SIZES["test"] is used);
  2. builds deterministic float64 standard-normal inputs and saves them as .npy;
  3. imports the file as a module and calls the kernel under NumPy (warnings are
     errors: a test program must not overflow or take log/sqrt of negatives);
  4. checks the NumPy result against the return annotation, when there is one;
  5. runs `AXON run FILE --dims M=..,N=.. --in x=x.npy ... --out out0.npy[,out1.npy]`
     and compares: shapes equal, NaNs in the same places, and the normwise
     relative error max|axon - numpy| / max(max|numpy|, 1e-300) <= 1e-9.

Usage (Debian's python3 has NumPy):
    /usr/bin/python3 tests/crosscheck.py --axon build/axon [FILES...]
    /usr/bin/python3 -W error tests/crosscheck.py --numpy-only

With no FILES it checks bench/kernels/*.py, tests/programs/*.py and examples/*.py
under the repository root (found from this script's location). Exit status 0 when
every file passes, 1 otherwise.
"""

import argparse
import ast
import importlib.util
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import zlib
from pathlib import Path

import numpy as np

sys.dont_write_bytecode = True  # leave no __pycache__ next to the programs
ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GLOBS = ("bench/kernels/*.py", "tests/programs/*.py", "examples/*.py")
TOLERANCE = 1e-9
DTYPES = ("f32", "f16", "bf16")
ANNOTATION = re.compile(r"^\s*([A-Za-z0-9_]+)\s*\[(.*)\]\s*$")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CheckError(Exception):
    """The file fails the check; the message says why."""


# ---------------------------------------------------------------------------
# Reading a program file


class DimExpr:
    """A dimension such as "3*D" or "H*S": size arithmetic over names."""

    def __init__(self, text):
        self.text = text
        self.names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)

    def value(self, sizes):
        return int(eval(self.text, {"__builtins__": {}}, dict(sizes)))


def parse_annotation(text):
    """'f32[M, 4]' -> ('f32', ['M', 4]); 'f32[]' -> ('f32', [])."""
    m = ANNOTATION.match(text)
    if not m or m.group(1) not in DTYPES:
        raise CheckError(f"bad type annotation {text!r} (want e.g. \"f32[M, N]\")")
    body = m.group(2).strip()
    dims = []
    if body:
        for part in body.split(","):
            part = part.strip()
            if re.fullmatch(r"[0-9]+", part):
                dims.append(int(part))
            elif IDENT.match(part):
                dims.append(part)
            elif re.fullmatch(r"[A-Za-z_0-9+\-* ]+", part):
                dims.append(DimExpr(part))
            else:
                raise CheckError(f"bad dimension {part!r} in annotation {text!r}")
    return m.group(1), dims


def string_constant(node, what):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    raise CheckError(f"{what} must be a string annotation like \"f32[M, N]\"")


class Program:
    """What the cross-check needs from one program file."""

    def __init__(self, path):
        self.path = path
        source = path.read_text()
        tree = ast.parse(source, filename=str(path))
        defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        if not defs:
            raise CheckError("no top-level def")
        kernel = defs[-1]
        self.name = kernel.name
        self.params = []  # (name, dtype, dims)
        args = kernel.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise CheckError(f"kernel {kernel.name}: only plain parameters are allowed")
        # Non-tensor parameters (eps: float = 1e-5) keep their defaults, under
        # NumPy as in axon: the tensors are passed by position before them.
        first_default = len(args.args) - len(args.defaults)
        for i, a in enumerate(args.args):
            setting = isinstance(a.annotation, ast.Name) and a.annotation.id in ("int", "float", "bool")
            if i >= first_default and (a.annotation is None or setting):
                continue
            if a.annotation is None:
                raise CheckError(f"kernel parameter {a.arg!r} has no annotation")
            dtype, dims = parse_annotation(string_constant(a.annotation, f"parameter {a.arg!r}"))
            self.params.append((a.arg, dtype, dims))
        # Return annotation: absent, one string, or a tuple of strings.
        self.returns = None
        if kernel.returns is not None:
            r = kernel.returns
            elts = r.elts if isinstance(r, ast.Tuple) else [r]
            self.returns = [parse_annotation(string_constant(e, "return annotation")) for e in elts]
        self.sizes = self._sizes(tree)

    @staticmethod
    def _sizes(tree):
        value = None
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "SIZES"
            ):
                value = node.value
        if value is None:
            raise CheckError("no module-level SIZES = {\"test\": {...}, \"bench\": {...}}")
        try:
            sizes = ast.literal_eval(value)
        except ValueError:
            raise CheckError("SIZES must be a plain dict literal") from None
        if not isinstance(sizes, dict) or set(sizes) != {"test", "bench"}:
            raise CheckError("SIZES must have exactly the keys \"test\" and \"bench\"")
        for kind, table in sizes.items():
            if not isinstance(table, dict) or not all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v > 0
                for k, v in table.items()
            ):
                raise CheckError(f"SIZES[{kind!r}] must map size names to positive ints")
        return sizes

    def symbols(self):
        """Symbolic size names in the order the parameters first use them."""
        seen = []
        for _, _, dims in self.params:
            for d in dims:
                for name in (d.names if isinstance(d, DimExpr) else [d] if isinstance(d, str) else []):
                    if name not in seen:
                        seen.append(name)
        return seen

    def test_sizes(self):
        table = self.sizes["test"]
        used = self.symbols()
        missing = [s for s in used if s not in table]
        if missing:
            raise CheckError(f"SIZES['test'] lacks {', '.join(missing)}")
        for kind in ("test", "bench"):
            unused = [s for s in self.sizes[kind] if s not in used]
            if unused:
                raise CheckError(f"SIZES[{kind!r}] names sizes no parameter uses: {', '.join(unused)}")
            lacking = [s for s in used if s not in self.sizes[kind]]
            if lacking:
                raise CheckError(f"SIZES[{kind!r}] lacks {', '.join(lacking)}")
        return {s: table[s] for s in used}

    def shape(self, dims, sizes):
        out = []
        for d in dims:
            if isinstance(d, int):
                out.append(d)
            elif isinstance(d, DimExpr) and all(n in sizes for n in d.names):
                out.append(d.value(sizes))
            elif isinstance(d, str) and d in sizes:
                out.append(sizes[d])
            else:
                raise CheckError(f"size {d!r} of the return annotation is not a parameter size")
        return tuple(out)


def load_module(path, index):
    spec = importlib.util.spec_from_file_location(f"axon_crosscheck_{index}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_inputs(prog, sizes, seed):
    # One stream per file, independent of the order files are checked in.
    rng = np.random.default_rng([seed, zlib.crc32(prog.path.name.encode())])
    inputs = []
    for name, _, dims in prog.params:
        shape = prog.shape(dims, sizes)
        inputs.append((name, np.asarray(rng.standard_normal(shape), dtype=np.float64)))
    return inputs


def run_numpy(prog, module, inputs):
    fn = getattr(module, prog.name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            result = fn(*[value.copy() for _, value in inputs])
    outs = list(result) if isinstance(result, tuple) else [result]
    return [np.asarray(o, dtype=np.float64) for o in outs]


# ---------------------------------------------------------------------------
# Comparing


def relative_error(got, want):
    """Normwise relative error; NaNs and infinities must match exactly."""
    if got.shape != want.shape:
        raise CheckError(f"shape {got.shape} from axon, {want.shape} from numpy")
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    if not np.array_equal(nan_got, nan_want):
        where = tuple(int(i) for i in np.argwhere(nan_got != nan_want)[0])
        raise CheckError(f"NaN positions differ (first at {where})")
    inf_got, inf_want = np.isinf(got), np.isinf(want)
    if not np.array_equal(inf_got, inf_want) or not np.array_equal(got[inf_got], want[inf_want]):
        raise CheckError("infinities differ")
    finite = ~(nan_want | inf_want)
    if not finite.any():
        return 0.0
    scale = max(float(np.max(np.abs(want[finite]))), 1e-300)
    return float(np.max(np.abs(got[finite] - want[finite]))) / scale


def check_file(path, index, args):
    """Returns (relative error or None, numpy seconds, axon seconds or None, note)."""
    prog = Program(path)
    if path.parent.name == "kernels" and path.parent.parent.name == "bench" and prog.name != path.stem:
        raise CheckError(f"the kernel def is {prog.name!r}; a bench kernel is named after its file")
    sizes = prog.test_sizes()
    module = load_module(path, index)
    if getattr(module, "SIZES", None) != prog.sizes:
        raise CheckError("SIZES changes after the literal")
    inputs = make_inputs(prog, sizes, args.seed)

    t0 = time.perf_counter()
    try:
        want = run_numpy(prog, module, inputs)
    except Exception as e:  # the program itself is broken under NumPy
        raise CheckError(f"numpy: {type(e).__name__}: {e}") from None
    t_numpy = time.perf_counter() - t0

    if prog.returns is not None:
        if len(prog.returns) != len(want):
            raise CheckError(f"return annotation has {len(prog.returns)} outputs, numpy gave {len(want)}")
        for i, ((_, dims), w) in enumerate(zip(prog.returns, want)):
            expect = prog.shape(dims, sizes)
            if w.shape != expect:
                raise CheckError(f"output {i}: numpy shape {w.shape}, annotation says {expect}")
    if args.numpy_only:
        shapes = " ".join(str(w.shape).replace(" ", "") for w in want)
        return None, t_numpy, None, f"out {shapes}"

    tmp = Path(tempfile.mkdtemp(prefix=f"axon-xcheck-{path.stem}-"))
    try:
        cmd = [str(args.axon), "run", str(path)]
        if sizes:
            cmd += ["--dims", ",".join(f"{k}={v}" for k, v in sizes.items())]
        for name, value in inputs:
            file = tmp / f"{name}.npy"
            np.save(file, value)
            cmd += ["--in", f"{name}={file}"]
        outs = [tmp / f"out{i}.npy" for i in range(len(want))]
        cmd += ["--out", ",".join(str(o) for o in outs)]
        if args.verbose:
            print("  $ " + " ".join(cmd), flush=True)
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            raise CheckError(f"axon timed out after {args.timeout} s: {' '.join(cmd)}") from None
        t_axon = time.perf_counter() - t0
        if proc.returncode != 0:
            raise CheckError(
                f"axon exited with status {proc.returncode}\n  $ {' '.join(cmd)}\n"
                + "".join(f"  | {line}\n" for line in (proc.stderr or proc.stdout).splitlines())
            )
        err = 0.0
        for i, (out, w) in enumerate(zip(outs, want)):
            if not out.exists():
                raise CheckError(f"axon wrote no {out.name}")
            got = np.load(out)
            if got.dtype != np.float64:
                raise CheckError(f"output {i}: axon wrote {got.dtype}, want float64")
            try:
                e = relative_error(got, w)
            except CheckError as ce:
                raise CheckError(f"output {i}: {ce}") from None
            err = max(err, e)
        if err > TOLERANCE:
            raise CheckError(f"relative error {err:.3e} > {TOLERANCE:g}")
        return err, t_numpy, t_axon, ""
    finally:
        if args.keep:
            print(f"  kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="program files (default: all)")
    ap.add_argument("--axon", type=Path, default=ROOT / "build" / "axon", help="the axon binary")
    ap.add_argument("--numpy-only", action="store_true", help="only run the programs under NumPy")
    ap.add_argument("--seed", type=int, default=0, help="input seed (default 0)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per axon run")
    ap.add_argument("--keep", action="store_true", help="keep the .npy files")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the axon commands")
    args = ap.parse_args()

    files = [f.resolve() for f in args.files]
    if not files:
        for pattern in DEFAULT_GLOBS:
            files += sorted(ROOT.glob(pattern))
    if not files:
        print("no program files found", file=sys.stderr)
        return 1
    if not args.numpy_only:
        args.axon = args.axon.resolve()
        if not args.axon.is_file():
            print(f"error: no axon binary at {args.axon} (build it, or pass --axon)", file=sys.stderr)
            return 1

    failed = 0
    for index, path in enumerate(files):
        try:
            shown = path.relative_to(ROOT)
        except ValueError:
            shown = path
        try:
            err, t_numpy, t_axon, note = check_file(path, index, args)
            timing = f"numpy {t_numpy * 1e3:7.1f} ms"
            if t_axon is not None:
                timing += f"  axon {t_axon * 1e3:7.1f} ms"
            rel = "" if err is None else f"rel_err {err:.2e}"
            print(f"PASS  {str(shown):40s} {rel:17s} {timing}  {note}".rstrip(), flush=True)
        except CheckError as e:
            failed += 1
            first, _, rest = str(e).partition("\n")
            print(f"FAIL  {str(shown):40s} {first}", flush=True)
            if rest:
                print(rest.rstrip("\n"), flush=True)
        except Exception as e:  # noqa: BLE001 -- report and keep going
            failed += 1
            print(f"FAIL  {str(shown):40s} {type(e).__name__}: {e}", flush=True)
    print(f"{len(files) - failed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
