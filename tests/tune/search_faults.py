#!/usr/bin/env python3
"""The search survives its candidates and its own death:
  1. candidates that crash, hang or compute a wrong result (injected by the
     test-only hook AXON_TEST_INJECT) are recorded in the report and skipped,
     and the search still chooses a valid kernel;
  2. a search killed with SIGKILL after some candidates were measured resumes
     from the cache without measuring them again, and then answers from the
     cache at once;
  3. a corrupt cache file is moved aside with a warning and rebuilt;
  4. a candidate that allocates more than --memory-limit, and one that spins
     past --cpu-limit, are recorded as failed with their limit (the memory
     case is skipped with --sanitized: the sanitizer's allocator reports it).

    search_faults.py --axon build/axon [--sanitized]
"""
import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAM = str(ROOT / "bench" / "kernels" / "layernorm_matmul.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--sanitized", action="store_true", help="an AddressSanitizer build")
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # 1. Injected faults.
        env = dict(os.environ, AXON_TEST_INJECT="1=crash,2=hang,3=wrong")
        p = subprocess.run([args.axon, "optimize", PROGRAM, "--dims", "test", "-o", f"{tmp}/faults", "--no-cache",
                            "--time-limit", "3"], capture_output=True, text=True, env=env, timeout=300)
        report = pathlib.Path(tmp, "faults", "report.md").read_text() if p.returncode == 0 else ""
        if p.returncode != 0:
            failures.append(f"faults: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        rows = [line for line in report.splitlines() if line.startswith("| ")]
        for want in ("killed by signal", "timed out after 3 s", "wrong result"):
            if not any(want in row for row in rows):
                failures.append(f"faults: no candidate in the report is '{want}'")
        chosen = [row for row in rows if "(chosen)" in row]
        if len(chosen) != 1 or "| valid" not in chosen[0]:
            failures.append(f"faults: expected one valid chosen candidate, got {chosen}")
        if "chose " not in p.stdout:
            failures.append(f"faults: no choice reported: {p.stdout.strip()[-200:]}")
        html = pathlib.Path(tmp, "faults", "report.html")
        if not html.exists() or html.read_text().count("<svg") != 2:
            failures.append("faults: report.html lacks its two plots")

        # 2. SIGKILL after the first candidate was measured, then resume.
        cache = f"{tmp}/cache.sqlite"
        def to(out):
            return [args.axon, "optimize", PROGRAM, "--dims", "test", "-o", f"{tmp}/{out}", "--cache", cache]

        cmd = to("killed")
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        measured = 0
        deadline = time.time() + 120
        while time.time() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            if ": valid" in line or "wrong result" in line:
                measured += 1
                os.kill(child.pid, signal.SIGKILL)
                break
        child.wait()
        if measured == 0 or child.returncode != -signal.SIGKILL:
            failures.append(f"kill: the search was not killed mid-way (exit {child.returncode})")
        p = subprocess.run(to("resumed"), capture_output=True, text=True, timeout=300)
        search = json.loads(pathlib.Path(tmp, "resumed", "search.json").read_text()) if p.returncode == 0 else {}
        if p.returncode != 0 or search.get("resumed", 0) < 1 or "measured before" not in p.stdout:
            failures.append(f"resume: expected a resumed search (exit {p.returncode}, resumed "
                            f"{search.get('resumed')}): {p.stdout.strip()[-300:]} {p.stderr.strip()[-300:]}")
        t = time.perf_counter()
        p = subprocess.run(to("hit"), capture_output=True, text=True, timeout=60)
        hit_s = time.perf_counter() - t
        if p.returncode != 0 or "from the cache" not in p.stdout or hit_s >= 1.0:
            failures.append(f"hit: expected a cache hit under 1 s, took {hit_s:.2f} s: {p.stdout.strip()[-200:]}")
        for name in ("kernel.so", "kernel.cpp", "report.md"):
            a, b = pathlib.Path(tmp, "resumed", name), pathlib.Path(tmp, "hit", name)
            if not b.exists() or a.read_bytes() != b.read_bytes():
                failures.append(f"hit: {name} differs from the searched one")

        # 3. A corrupt cache is moved aside and rebuilt.
        pathlib.Path(cache).write_bytes(b"this is not a database" * 100)
        for extra in ("-wal", "-shm"):
            pathlib.Path(cache + extra).unlink(missing_ok=True)
        p = subprocess.run(to("rebuilt"), capture_output=True, text=True, timeout=300)
        aside = list(pathlib.Path(tmp).glob("cache.sqlite.corrupt-*"))
        if p.returncode != 0 or "warning" not in p.stderr or not aside or "from the cache" in p.stdout:
            failures.append(f"corrupt: expected a warning, a moved-aside file and a fresh search (exit "
                            f"{p.returncode}): {p.stderr.strip()[-300:]}")

        # 4. Over the memory limit (1 GiB asked, 256 MiB allowed), over the CPU-time limit.
        faults, limits, wants = "2=hang", ["--cpu-limit", "3"], ["exceeded the CPU-time limit of 3 s (killed by SIGXCPU)"]
        if not args.sanitized:
            faults += ",1=memory"
            limits += ["--memory-limit", "256"]
            wants.append("exceeded the memory limit of 256 MiB (an allocation failed)")
        env = dict(os.environ, AXON_TEST_INJECT=faults)
        p = subprocess.run([args.axon, "optimize", PROGRAM, "--dims", "test", "-o", f"{tmp}/limits", "--no-cache",
                            "--time-limit", "60"] + limits, capture_output=True, text=True, env=env, timeout=300)
        report = pathlib.Path(tmp, "limits", "report.md").read_text() if p.returncode == 0 else ""
        if p.returncode != 0:
            failures.append(f"limits: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        rows = [line for line in report.splitlines() if line.startswith("| ")]
        for want in wants:
            if not any(want in row for row in rows):
                failures.append(f"limits: no candidate in the report is '{want}'")
        if "timed out" in report:
            failures.append("limits: the spinning candidate timed out instead of reaching its CPU-time limit")
    for f in failures:
        print("FAIL:", f)
    print("search_faults:", "ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
