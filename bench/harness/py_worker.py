"""Runs one contestant on one kernel in its own process, driven over stdin/stdout.

    VENV/bin/python bench/harness/py_worker.py --kernel bench/kernels/X.py \\
        --dims M=4096,N=4096 --inputs DIR --contestant torch_eager

DIR holds in0.npy, in1.npy, ... (float32, the kernel's parameters in order). The
process must be started with frameworks.environment(contestant) added to its
environment. It loads the inputs, builds the callable, calls it once and writes the
result to DIR/out-<contestant>.npy (float32), warms up (torch.compile and jax.jit
compile here), then speaks this protocol, one flushed line per message:

    worker: ready <setup_seconds>
    driver: time N            worker: times t1 ... tN     (seconds per call)
    driver: quit (or EOF)     worker exits 0
    on any failure            worker: error <message>, exits 1

Only protocol lines reach stdout: whatever else is printed there (by Python code or
by C libraries) is redirected to stderr.
"""
import time

STARTED = time.perf_counter()  # before the heavy imports: setup time includes them

import argparse  # noqa: E402
import gc  # noqa: E402
import inspect  # noqa: E402
import os  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import frameworks  # noqa: E402


class WorkerError(Exception):
    """A bad argument, input or command; reported without a traceback."""


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message):
        raise WorkerError(f"bad arguments: {message}")


def protocol_channel():
    """Moves stdout's file descriptor aside for the protocol and points fd 1 at
    stderr, so stray prints from the frameworks cannot corrupt the protocol."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    return channel


def send(channel, line):
    channel.write(line + "\n")
    channel.flush()


def parse_dims(text):
    dims = {}
    for item in filter(None, text.split(",")):
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(\d+)\s*", item)
        if not m:
            raise WorkerError(f"--dims: expected NAME=SIZE, got '{item}'")
        dims[m.group(1)] = int(m.group(2))
    return dims


def expected_shape(annotation, dims, param):
    m = re.fullmatch(r"\s*f32\[(.*)\]\s*", str(annotation))
    if not m:
        raise WorkerError(f"parameter '{param}': unsupported annotation '{annotation}'")
    shape = []
    for size in filter(None, (s.strip() for s in m.group(1).split(","))):
        if size.isdigit():
            shape.append(int(size))
        elif size in dims:
            shape.append(dims[size])
        else:
            raise WorkerError(f"parameter '{param}': size '{size}' missing from --dims")
    return tuple(shape)


def load_inputs(kernel, name, dims, directory):
    """The kernel's inputs from DIR/in<i>.npy, checked against its annotations."""
    fn = getattr(frameworks.load_kernel(kernel), name, None)
    if fn is None:
        raise WorkerError(f"{kernel}: no function named '{name}'")
    arrays = []
    for i, param in enumerate(inspect.signature(fn).parameters.values()):
        file = directory / f"in{i}.npy"
        if not file.is_file():
            raise WorkerError(f"missing input {file} for parameter '{param.name}'")
        array = np.load(file)
        shape = expected_shape(param.annotation, dims, param.name)
        if array.dtype != np.float32 or array.shape != shape:
            raise WorkerError(f"{file}: expected float32{list(shape)}, got {array.dtype}{list(array.shape)}")
        arrays.append(np.ascontiguousarray(array))
    return arrays


def save_result(result, path):
    partial = path.with_name(path.name + ".partial.npy")
    np.save(partial, frameworks.to_numpy(result))
    os.replace(partial, path)


def timed_calls(call, count):
    """`count` back-to-back calls, each timed alone. The collector is paused so a
    collection triggered by one framework's garbage is not billed to a call."""
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(count):
            start = time.perf_counter()
            call()
            times.append(time.perf_counter() - start)
    finally:
        gc.enable()
    return times


def serve(channel, call):
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        words = line.split()
        if not words:
            continue
        if words == ["quit"]:
            return
        if len(words) == 2 and words[0] == "time" and words[1].isdigit() and int(words[1]) > 0:
            times = timed_calls(call, int(words[1]))
            send(channel, "times " + " ".join(repr(t) for t in times))
            continue
        raise WorkerError(f"unknown command '{line.strip()}' (expected 'time N' or 'quit')")


def main():
    channel = protocol_channel()
    try:
        ap = ArgumentParser(description=__doc__.split("\n\n")[0])
        ap.add_argument("--kernel", required=True, type=pathlib.Path, help="bench/kernels/<name>.py")
        ap.add_argument("--dims", required=True, help="sizes, e.g. M=4096,N=4096")
        ap.add_argument("--inputs", required=True, type=pathlib.Path, help="directory with in0.npy, in1.npy, ...")
        ap.add_argument("--contestant", required=True, choices=frameworks.CONTESTANTS)
        ap.add_argument("--warmup", type=int, default=3, help="untimed calls after the first (at least 3)")
        args = ap.parse_args()
        name = args.kernel.stem

        frameworks.configure(args.contestant)
        arrays = load_inputs(args.kernel, name, parse_dims(args.dims), args.inputs)
        call = frameworks.make(name, args.contestant, arrays, path=args.kernel)
        save_result(call(), args.inputs / f"out-{args.contestant}.npy")
        for _ in range(max(3, args.warmup)):
            call()
        send(channel, f"ready {time.perf_counter() - STARTED:.3f}")
        serve(channel, call)
        return 0
    except SystemExit:  # --help
        raise
    except WorkerError as e:
        send(channel, f"error {' '.join(str(e).split())}")
        return 1
    except BaseException as e:  # noqa: B036 - any failure must reach the driver as one line
        traceback.print_exc(file=sys.stderr)
        message = " ".join(f"{type(e).__name__}: {e}".split())[:2000]
        send(channel, f"error {message}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
