#!/usr/bin/env python3
"""Runs one NKI kernel file under the simulator for Axon's C++ side.

  axon_nki_run.py --kernel PATH/kernel.py --entry NAME --inputs a.npy,b.npy
                  --outputs o0.npy,o1.npy [--dtypes f32,bf16] [--trace trace.jsonl]
                  [--stats stats.json] [--no-reorder-check] [--dry]

Inputs (.npy, float32 or float64) are cast to --dtypes (f32|bf16|f16, default f32 each);
with --dry an input may instead be a shape, `4096x8192` (zeros), and the kernel runs dry:
control flow, shapes and rules and the trace, no values (the outputs written are undefined);
the kernel's outputs are written as float32 .npy files, in order. Exit status: 0 on
success; 1 when the kernel breaks a rule or raises, with one first stderr line
`FILE:LINE: error: [RULE] message` (rule `kernel` for a plain Python exception in the
kernel); 2 on a bug in the simulator itself (a traceback follows).
"""
import argparse
import importlib.util
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import neuronxcc.nki as nki  # noqa: E402
from neuronxcc.nki import _dtypes, _run  # noqa: E402
from neuronxcc.nki._errors import PACKAGE_DIR, NkiSimError  # noqa: E402

DTYPES = {"f32": _dtypes.float32, "bf16": _dtypes.bfloat16, "f16": _dtypes.float16}


class UsageError(Exception):
    pass


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--entry", required=True)
    parser.add_argument("--inputs", default="")
    parser.add_argument("--outputs", required=True)
    parser.add_argument("--dtypes", default="")
    parser.add_argument("--trace")
    parser.add_argument("--stats")
    parser.add_argument("--no-reorder-check", action="store_true")
    parser.add_argument("--dry", action="store_true")
    return parser.parse_args(argv)


def split(text):
    return [item for item in text.split(",") if item] if text else []


def load_inputs(args):
    paths = split(args.inputs)
    names = split(args.dtypes) or ["f32"] * len(paths)
    if len(names) != len(paths):
        raise UsageError("--dtypes names %d dtypes for %d inputs" % (len(names), len(paths)))
    arrays = []
    for path, name in zip(paths, names):
        if name not in DTYPES:
            raise UsageError("unknown dtype %r in --dtypes (use f32, bf16, f16)" % name)
        if args.dry and not path.endswith(".npy"):
            try:
                dims = tuple(int(d) for d in path.split("x"))
            except ValueError:
                raise UsageError("%r is neither a .npy file nor a shape like 128x512" % path)
            arrays.append(np.zeros(dims, dtype=DTYPES[name]))
            continue
        array = np.load(path)
        if array.dtype not in (np.float32, np.float64):
            raise UsageError("%s holds %s; inputs must be float32 or float64" % (path, array.dtype))
        arrays.append(array.astype(np.float32).astype(DTYPES[name]))
    return arrays


def load_kernel(path, entry):
    spec = importlib.util.spec_from_file_location("axon_nki_kernel", path)
    if spec is None:
        raise UsageError("cannot import %s" % path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, entry):
        raise UsageError("%s has no function %r" % (path, entry))
    kernel = getattr(module, entry)
    return kernel.func if isinstance(kernel, nki.Kernel) else kernel


def kernel_frame(tb, kernel_path):
    """FILE:LINE for a plain exception: the deepest frame in the kernel file, else outside us."""
    frames = traceback.extract_tb(tb)
    kernel_path = os.path.abspath(kernel_path)
    for frame in reversed(frames):
        if os.path.abspath(frame.filename) == kernel_path:
            return frame.filename, frame.lineno
    for frame in reversed(frames):
        if not frame.filename.startswith(PACKAGE_DIR) and frame.filename != __file__:
            return frame.filename, frame.lineno
    return None


def in_simulator(tb):
    frames = traceback.extract_tb(tb)
    return bool(frames) and frames[-1].filename.startswith(PACKAGE_DIR)


def main(argv):
    args = parse(argv)
    try:
        inputs = load_inputs(args)
        output_paths = split(args.outputs)
        func = load_kernel(args.kernel, args.entry)
        result = _run.run(func, inputs, {}, reorder_check=not args.no_reorder_check,
                          dry=args.dry)
    except UsageError as error:
        print("axon_nki_run: error: %s" % error, file=sys.stderr)
        return 1
    except NkiSimError as error:
        print(error.format(), file=sys.stderr)
        return 1
    except Exception as error:  # a kernel bug, or ours
        tb = sys.exc_info()[2]
        if in_simulator(tb):
            traceback.print_exc()
            return 2
        location = kernel_frame(tb, args.kernel) or (args.kernel, 0)
        print("%s:%d: error: [kernel] %s: %s" % (location[0], location[1],
                                                 type(error).__name__, error), file=sys.stderr)
        return 1
    try:
        if len(result.outputs) != len(output_paths):
            print("%s:0: error: [R2] the kernel returns %d outputs, --outputs names %d"
                  % (args.kernel, len(result.outputs), len(output_paths)), file=sys.stderr)
            return 1
        for path, array in zip(output_paths, result.outputs):
            np.save(path, array.astype(np.float32))
        sim = _run.last.sim
        if args.trace:
            _run.write_trace(sim, args.trace)
        if args.stats:
            with open(args.stats, "w") as out:
                json.dump(sim.stats(), out, indent=1)
    except Exception:
        traceback.print_exc()
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
