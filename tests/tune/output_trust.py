#!/usr/bin/env python3
"""What `axon optimize` hands back is exactly what a fresh search would write,
whole, or nothing at all (the "Trust" issue, points 1, 2, 7, 9 and 10):

  cache    every part of a kernel's identity is in the cache key: parameter
           order, names, dtypes and unused parameters, the entry, constants,
           the description's prelude, the compiler; a damaged or incomplete
           entry is a miss with a warning, never a partial folder;
  folder   OUT/ is replaced whole: a re-optimize killed mid-way leaves the
           previous folder intact and usable, a folder holding someone else's
           files is refused, a failed search leaves OUT/ as it was;
  writes   --out /dev/full is exit 1 for run and exec, and never replaces the
           device; /dev/null works;
  resume   a resumed search times again what it takes from the cache;
  status   no user error says "internal error".

    output_trust.py --axon build/axon [--only NAME]
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
FAST = ["--variants", "1", "--max-candidates", "1", "--budget", "30", "--quiet"]

TWO_INPUTS = '''import numpy as np

def f({params}):
    return x * {c} - y
'''


class Checks:
    def __init__(self, axon, tmp):
        self.axon, self.tmp, self.failures = axon, pathlib.Path(tmp), []
        self.cache = str(self.tmp / "cache.sqlite")

    def fail(self, what):
        self.failures.append(what)
        print("FAIL:", what, flush=True)

    def run(self, *args, env=None, timeout=300, cwd=None):
        return subprocess.run([self.axon, *args], capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, **(env or {})), cwd=cwd)

    def program(self, name, text):
        path = self.tmp / name
        path.write_text(text)
        return str(path)

    def optimize(self, prog, out, *extra, env=None, cache=True):
        args = ["optimize", prog, "--dims", "N=16", "-o", str(self.tmp / out), *FAST, *extra]
        args += ["--cache", self.cache] if cache else ["--no-cache"]
        return self.run(*args, env=env)

    def kernel_json(self, out):
        return json.loads((self.tmp / out / "kernel.json").read_text())

    # ---- 1. The cache key and the hit --------------------------------------------------
    def cache_key(self):
        a = self.program("a.py", TWO_INPUTS.format(params='x: "f32[N]", y: "f32[N]"', c="2.0"))
        p = self.optimize(a, "a")
        if p.returncode != 0:
            return self.fail(f"cache: first search failed: {p.stderr[-400:]}")
        again = self.optimize(a, "a2")
        if "from the cache" not in again.stdout:
            self.fail(f"cache: the same program was not answered from the cache: {again.stdout[-200:]}")
        variants = {
            "swapped parameters": TWO_INPUTS.format(params='y: "f32[N]", x: "f32[N]"', c="2.0"),
            "unused parameter": TWO_INPUTS.format(params='x: "f32[N]", y: "f32[N]", unused: "f32[N]"', c="2.0"),
            "another dtype": TWO_INPUTS.format(params='x: "bf16[N]", y: "f32[N]"', c="2.0"),
            "a constant past print precision": TWO_INPUTS.format(params='x: "f32[N]", y: "f32[N]"',
                                                                 c="2.00000000000000044"),
            "another entry name": TWO_INPUTS.format(params='x: "f32[N]", y: "f32[N]"', c="2.0").replace(
                "def f(", "def h("),
        }
        for what, text in variants.items():
            prog = self.program(re.sub(r"\W", "_", what) + ".py", text)
            p = self.optimize(prog, "v")
            if p.returncode != 0:
                self.fail(f"cache: {what}: exit {p.returncode}: {p.stderr[-300:]}")
            elif "from the cache" in p.stdout:
                self.fail(f"cache: {what}: answered from the cache with another program's kernel")
        # The swapped program's kernel.json lists its own parameter order.
        swapped = self.program("swapped.py", variants["swapped parameters"])
        self.optimize(swapped, "swapped")
        names = [i["name"] for i in self.kernel_json("swapped")["inputs"]]
        if names != ["y", "x"]:
            self.fail(f"cache: f(y, x) has inputs {names}")
        # A description whose prelude changed is another target.
        hw = self.tmp / "hw"
        shutil.copytree(ROOT / "hw", hw)
        desc = "x86-avx512.json" if "avx512f" in pathlib.Path("/proc/cpuinfo").read_text() else "x86-avx2.json"
        p1 = self.optimize(a, "t1", "--target", str(hw / desc))
        prelude = json.loads((hw / desc).read_text()).get("prelude")
        if prelude:
            with open(hw / prelude, "a") as f:
                f.write("\n// a change to the prelude\n")
            p2 = self.optimize(a, "t2", "--target", str(hw / desc))
            if p1.returncode != 0 or p2.returncode != 0 or "from the cache" in p2.stdout:
                self.fail(f"cache: an edited prelude was answered from the cache ({p1.returncode}, {p2.returncode})")
        # Another compiler command is another toolchain.
        p = self.optimize(a, "cc", env={"AXON_CXX": "g++ -fno-tree-vectorize"})
        if p.returncode != 0 or "from the cache" in p.stdout:
            self.fail(f"cache: another AXON_CXX was answered from the cache (exit {p.returncode})")

    def cache_damage(self):
        a = self.program("d.py", TWO_INPUTS.format(params='x: "f32[N]", y: "f32[N]"', c="3.0"))
        if self.optimize(a, "d").returncode != 0:
            return self.fail("damage: first search failed")
        for damage, sql in (("a damaged file", "UPDATE kernel_files SET bytes = X'00' || bytes WHERE name = 'kernel.so'"),
                            ("a missing file", "DELETE FROM kernel_files WHERE name = 'kernel.json'")):
            with sqlite3.connect(self.cache) as db:
                db.execute(sql)
            out = self.tmp / "damaged"
            p = self.optimize(a, "damaged")
            if p.returncode != 0 or "from the cache" in p.stdout or "warning" not in p.stderr:
                self.fail(f"damage: {damage}: expected a warning and a fresh search (exit {p.returncode}): "
                          f"{p.stdout[-200:]} {p.stderr[-300:]}")
            for name in ("kernel.so", "kernel.json", "kernel.h"):
                if not (out / name).exists():
                    self.fail(f"damage: {damage}: {name} is missing from the folder")
            e = self.run("exec", str(out))
            if e.returncode != 0:
                self.fail(f"damage: {damage}: the folder does not run: {e.stderr[-300:]}")

    # ---- 2. The output folder ------------------------------------------------------------
    def folder(self):
        small = self.program("small.py", 'import numpy as np\n\ndef f(x: "f32[M, N]"):\n    return np.exp(x) * 2.0\n')
        big = self.program("big.py", 'import numpy as np\n\ndef f(x: "f32[M, N]"):\n'
                           '    return np.exp(x) * 2.0 + np.sum(x, axis=-1, keepdims=True)\n')
        out = self.tmp / "out"
        p = self.run("optimize", small, "--dims", "M=5,N=7", "-o", str(out), "--no-cache", *FAST)
        if p.returncode != 0:
            return self.fail(f"folder: first search failed: {p.stderr[-300:]}")
        before = {n: (out / n).read_bytes() for n in ("kernel.so", "kernel.json", "kernel.h")}
        # A re-optimize killed as soon as it has candidates to compile.
        child = subprocess.Popen([self.axon, "optimize", big, "--dims", "M=300,N=300", "-o", str(out), "--no-cache",
                                  "--variants", "2", "--max-candidates", "4"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        deadline = time.time() + 120
        while time.time() < deadline and not list(self.tmp.glob(".out.axon-partial-*/candidates/c0")):
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        after = {n: (out / n).read_bytes() for n in before if (out / n).exists()}
        if after != before:
            self.fail("folder: a killed re-optimize changed the previous folder")
        if self.kernel_json("out")["inputs"][0]["shape"] != [5, 7]:
            self.fail("folder: kernel.json is not the previous search's")
        e = self.run("exec", str(out))
        if e.returncode != 0:
            self.fail(f"folder: the previous folder no longer runs: {e.stderr[-300:]}")
        # The next search removes what the killed one left, and replaces the folder whole.
        p = self.run("optimize", big, "--dims", "M=30,N=30", "-o", str(out) + "/", "--no-cache", *FAST)
        if p.returncode != 0 or self.kernel_json("out")["inputs"][0]["shape"] != [30, 30]:
            self.fail(f"folder: the next search did not replace the folder (exit {p.returncode}): {p.stderr[-300:]}")
        if list(self.tmp.glob(".out.axon-partial-*")):
            self.fail("folder: a killed search's partial folder was left behind")
        # Someone else's files are never replaced.
        mine = self.tmp / "mine"
        mine.mkdir()
        (mine / "notes.txt").write_text("mine")
        p = self.run("optimize", small, "--dims", "M=5,N=7", "-o", str(mine), "--no-cache", *FAST)
        if p.returncode != 1 or "notes.txt" not in p.stderr or (mine / "kernel.so").exists():
            self.fail(f"folder: a folder with a foreign file was not refused (exit {p.returncode}): {p.stderr[-200:]}")
        if (mine / "notes.txt").read_text() != "mine":
            self.fail("folder: a user's file was changed")
        plain = self.tmp / "plain_file"
        plain.write_text("x")
        p = self.run("optimize", small, "--dims", "M=5,N=7", "-o", str(plain), "--no-cache", *FAST)
        if p.returncode != 1 or plain.read_text() != "x":
            self.fail(f"folder: -o naming a file was not refused (exit {p.returncode})")
        # A search in which no candidate is valid leaves OUT/ as it was.
        p = self.run("optimize", small, "--dims", "M=5,N=7", "-o", str(out), "--no-cache", *FAST,
                     env={"AXON_TEST_INJECT": "0=wrong"})
        if p.returncode != 5 or self.kernel_json("out")["inputs"][0]["shape"] != [30, 30]:
            self.fail(f"folder: a failed search changed OUT/ or did not exit 5 (exit {p.returncode}): "
                      f"{p.stderr[-300:]}")
        if not (self.tmp / "out.failed" / "candidates").is_dir():
            self.fail("folder: a failed search's candidates are not in OUT.failed/")

    # ---- 7. Every write checked ------------------------------------------------------------
    def writes(self):
        prog = self.program("w.py", 'import numpy as np\n\ndef f(x: "f32[N]"):\n    return x * 2.0\n')
        for dev in ("/dev/full", "/dev/null"):
            if not stat.S_ISCHR(os.stat(dev).st_mode):
                return self.fail(f"writes: {dev} is not a character device before the test")
        p = self.run("run", prog, "--dims", "N=4", "--out", "/dev/full")
        if p.returncode != 1 or "No space left" not in p.stderr or "wrote" in p.stdout:
            self.fail(f"writes: run --out /dev/full: exit {p.returncode}: {p.stdout[-200:]} {p.stderr[-200:]}")
        p = self.run("run", prog, "--dims", "N=4", "--out", "/dev/null")
        if p.returncode != 0:
            self.fail(f"writes: run --out /dev/null: exit {p.returncode}: {p.stderr[-200:]}")
        kept = self.tmp / "kept.npy"
        p = self.run("run", self.program("w2.py", 'import numpy as np\n\ndef f(x: "f32[N]"):\n    return x, x * 2.0\n'),
                     "--dims", "N=4", "--out", f"{kept},/dev/full")
        if p.returncode != 1 or kept.exists():
            self.fail(f"writes: run --out good,/dev/full wrote the good one (exit {p.returncode})")
        out = self.tmp / "wexec"
        if self.run("optimize", prog, "--dims", "N=4", "-o", str(out), "--no-cache", *FAST).returncode == 0:
            p = self.run("exec", str(out), "--out", "/dev/full")
            if p.returncode != 1 or "No space left" not in p.stderr or "wrote" in p.stdout:
                self.fail(f"writes: exec --out /dev/full: exit {p.returncode}: {p.stderr[-200:]}")
        else:
            self.fail("writes: optimize failed")
        p = self.run("optimize", prog, "--dims", "N=4", "-o", "/dev/full/out", "--no-cache", *FAST)
        if p.returncode != 1:
            self.fail(f"writes: optimize -o /dev/full/out: exit {p.returncode}: {p.stderr[-200:]}")
        for dev, minor in (("/dev/full", 7), ("/dev/null", 3)):
            if not stat.S_ISCHR(os.stat(dev).st_mode):
                self.fail(f"writes: {dev} was replaced by a file")
                if os.geteuid() == 0:  # put the device back, so a regression does not break the machine
                    os.unlink(dev)
                    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
                    os.chmod(dev, 0o666)
        left = [p.name for p in pathlib.Path("/dev").glob(".full.tmp*")] + [p.name for p in self.tmp.glob(".*.tmp*")]
        if left:
            self.fail(f"writes: temporary files left behind: {left}")

    # ---- 9. A resumed search times again what it reuses -----------------------------------
    def resume(self):
        prog = str(ROOT / "bench" / "kernels" / "softmax.py")
        cache = str(self.tmp / "resume.sqlite")
        args = ["optimize", prog, "--dims", "test", "--variants", "1", "--max-candidates", "3", "--cache", cache]
        p = self.run(*args, "-o", str(self.tmp / "r1"))
        if p.returncode != 0:
            return self.fail(f"resume: first search failed: {p.stderr[-300:]}")
        # Records taken "at a quiet moment": every candidate claims a nanosecond;
        # then the chosen kernel is forgotten, as if the search had been killed.
        with sqlite3.connect(cache) as db:
            db.execute("UPDATE candidates SET seconds = 1e-9 WHERE valid = 1")
            db.execute("DELETE FROM kernels")
            db.execute("DELETE FROM kernel_files")
        p = self.run(*args, "-o", str(self.tmp / "r2"))
        if p.returncode != 0:
            return self.fail(f"resume: resumed search failed: {p.stderr[-300:]}")
        search = json.loads((self.tmp / "r2" / "search.json").read_text())
        if search.get("resumed", 0) < 1:
            self.fail("resume: the search did not resume")
        if search.get("median_seconds", 0) <= 1e-8:
            self.fail(f"resume: the choice used a recorded time ({search.get('median_seconds')} s) instead of "
                      "timing it again")

    # ---- 10. Exit statuses ------------------------------------------------------------------
    def statuses(self):
        found = []
        for path in (ROOT / "src").rglob("*.cpp"):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r'UserError\([^;]*"internal error', line):
                    found.append(f"{path.relative_to(ROOT)}:{n}")
        if found:
            self.fail(f"statuses: user errors that say 'internal error': {found}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        checks = Checks(os.path.abspath(args.axon), tmp)
        for name in ("cache_key", "cache_damage", "folder", "writes", "resume", "statuses"):
            if args.only and args.only != name:
                continue
            t = time.perf_counter()
            getattr(checks, name)()
            print(f"  {name}: {time.perf_counter() - t:.1f} s", flush=True)
    print("output_trust:", "ok" if not checks.failures else f"{len(checks.failures)} failure(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
