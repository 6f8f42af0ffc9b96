"""Kernels: the output folder of a search, loaded into this process."""

import json
import os
import re
import shutil
import statistics
import time

import numpy as np

from . import _axon
from .errors import Error


class Kernel(_axon.Library):
    """A compiled kernel: call it with NumPy arrays.

    ``kernel(*arrays)`` takes one array per parameter, in order, at the sizes
    the kernel was searched for. C-contiguous float32 arrays are read in place
    (the GIL is released during the call); other layouts and dtypes are copied
    to float32 when that is exact and refused (``axon.ArgumentError``)
    otherwise. The result is a new float32 array, or a tuple of them.
    """

    def __init__(self, folder, *, function=None, numpy_seconds=0.0, from_cache=False):
        super().__init__(os.fspath(folder))  # loads and checks kernel.so; __call__ is the C++ one
        self._files = {}  # every file of the folder, by relative path: save() writes them back
        for top, _, names in os.walk(folder):
            for name in names:
                path = os.path.join(top, name)
                with open(path, "rb") as f:
                    self._files[os.path.relpath(path, folder)] = f.read()
        self._function = function
        self._numpy_seconds = numpy_seconds
        self._speedup = None
        self.from_cache = from_cache  # whether the search was answered by the kernel cache
        self.info = json.loads(self.info_text)
        self.report = json.loads(self._files["search.json"]) if "search.json" in self._files else {}

    def __repr__(self):
        ins = ", ".join(f"{p['name']}: f32{list(p['shape'])}" for p in self.inputs)
        return f"<axon.Kernel {self.name}({ins})>"

    @property
    def name(self):
        return self.info["kernel"]

    @property
    def source(self):
        """The kernel's C++ source (kernel.cpp)."""
        return self._files.get("kernel.cpp", b"").decode()

    @property
    def report_markdown(self):
        return self._files.get("report.md", b"").decode()

    @property
    def proofs(self):
        """What the report lists as proved (search.json's "proofs"), one dict
        per fact with its "kind": the chosen "variant" against the program
        (before, after, verdict, method, smtlib), each "rewrite" merged while
        exploring (before, after, verdict, method) and each "lowering" of a
        hole to instructions (hole, instructions, verdict, method)."""
        listed = self.report.get("proofs") or {}
        facts = []
        if listed.get("variant"):
            facts.append(dict(listed["variant"], kind="variant"))
        facts += [dict(r, kind="rewrite") for r in listed.get("rewrites", [])]
        facts += [dict(l, kind="lowering") for l in listed.get("lowerings", [])]
        return facts

    @property
    def seconds(self):
        """The kernel's median time in the search (search.json)."""
        return float(self.report.get("median_seconds", 0.0))

    @property
    def speedup(self):
        """NumPy's time over the kernel's, on the same inputs: the search's
        measurement of NumPy when it made one, else measured now (medians)."""
        if self._speedup is None:
            numpy_seconds = _numpy_seconds_of(self.report) or self._numpy_seconds
            kernel_seconds = self.seconds
            if not numpy_seconds or not kernel_seconds:
                numpy_seconds, kernel_seconds = self._measure()
            self._speedup = numpy_seconds / kernel_seconds
        return self._speedup

    def save(self, folder):
        """Writes the output folder again (as `axon optimize` wrote it) to
        ``folder``: a new or empty folder, or one that an earlier search or
        save wrote (it is replaced whole)."""
        folder = os.fspath(folder)
        if os.path.exists(folder):
            if not os.path.isdir(folder):
                raise Error(f"'{folder}' exists and is not a folder")
            entries = os.listdir(folder)
            if entries and "kernel.json" not in entries:
                raise Error(f"'{folder}' holds other files; refusing to replace it with a kernel")
        parent, base = os.path.split(os.path.abspath(folder))
        staging = os.path.join(parent, f".{base}.axon-partial-{os.getpid()}")
        shutil.rmtree(staging, ignore_errors=True)
        os.makedirs(staging)
        for name, data in self._files.items():
            path = os.path.join(staging, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        os.chmod(os.path.join(staging, "kernel.so"), 0o755)
        old = os.path.join(parent, f".{base}.axon-old-{os.getpid()}")
        if os.path.exists(folder):
            os.rename(folder, old)
        os.rename(staging, folder)
        shutil.rmtree(old, ignore_errors=True)

    def _measure(self):
        """Times NumPy's function and the kernel on the same random inputs."""
        function = self._function or _function_of_report(self.report_markdown, self.name)
        rng = np.random.default_rng(0)
        arrays = [rng.standard_normal(p["shape"]).astype(np.float32) for p in self.inputs]
        return _median_seconds(function, arrays), _median_seconds(self, arrays)


def load(folder):
    """Loads an output folder of `axon optimize` (or Kernel.save): kernel.json
    is checked against the description that kernel.so embeds."""
    return Kernel(folder)


def _numpy_seconds_of(report):
    entry = report.get("numpy")
    if isinstance(entry, (int, float)):
        return float(entry)
    if isinstance(entry, dict):
        for key in ("median_seconds", "seconds"):
            if isinstance(entry.get(key), (int, float)):
                return float(entry[key])
    return 0.0


def _function_of_report(markdown, name):
    """The NumPy function that report.md names as the program."""
    found = re.search(r"^- program: `(.*)`$", markdown, re.MULTILINE)
    if not found or not os.path.exists(found.group(1)):
        raise Error("cannot time NumPy: the program's file is unknown (pass the function to optimize)")
    import runpy
    return runpy.run_path(found.group(1))[name]


def _median_seconds(function, arrays, min_total=0.2, runs=7):
    function(*arrays)  # warm up
    start, calls = time.perf_counter(), 0
    while time.perf_counter() - start < min_total / runs or calls == 0:
        function(*arrays)
        calls += 1
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(calls):
            function(*arrays)
        samples.append((time.perf_counter() - t) / calls)
    return statistics.median(samples)
