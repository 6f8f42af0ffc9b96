#!/usr/bin/env python3
"""Checks the benchmark harness itself, at the kernels' test sizes: every
contestant (Axon, its ablations, NumPy, PyTorch eager, torch.compile in both
modes, JAX, OpenVINO and the expert library) agrees with the float64 reference, every timing is
positive and finite, each median lies between its min and max, and the
report and chart render from the results.

    harness_check.py --axon build/axon [--rounds 3] [kernel ...]
"""
import argparse
import json
import math
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axon", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("kernels", nargs="*")
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [args.axon, "bench", "--preset", "test", "--variants", "1", "--rounds", str(args.rounds),
               "--json-only", "--out", f"{tmp}/results", "--work", f"{tmp}/work", "--cache", f"{tmp}/cache.sqlite"]
        p = subprocess.run(cmd + args.kernels, capture_output=True, text=True)
        print(p.stdout[-4000:], p.stderr[-4000:])
        results = list(pathlib.Path(tmp, "results").glob("*.json"))
        if len(results) != 1:
            print(f"FAIL: expected one results file, found {len(results)} (exit {p.returncode})")
            return 1
        doc = json.loads(results[0].read_text())
        for key in ("fma_gflops", "copy_gbps"):
            if not doc["limits"][key] > 0:
                failures.append(f"limit {key} = {doc['limits'][key]}")
        expected = {"axon", "axon_no_algebra", "axon_no_fusion", "axon_default_tiling", "axon_no_tuning", "numpy",
                    "torch_eager", "torch_compile", "torch_max_autotune", "jax", "openvino", "expert"}
        want_kernels = set(args.kernels) or {k.stem for k in (ROOT / "bench" / "kernels").glob("*.py")}
        seen = {k["kernel"] for k in doc["kernels"]}
        if seen != want_kernels:
            failures.append(f"kernels measured {sorted(seen)}, expected {sorted(want_kernels)}")
        for k in doc["kernels"]:
            name = k["kernel"]
            if k.get("error"):
                failures.append(f"{name}: {k['error']}")
            if set(k["contestants"]) != expected:
                failures.append(f"{name}: contestants {sorted(k['contestants'])}")
            for c, e in k["contestants"].items():
                if e.get("status") != "ok":
                    failures.append(f"{name}/{c}: {e.get('status')}")
                    continue
                t = e["times"]
                if len(t) < args.rounds or not all(x > 0 and math.isfinite(x) for x in t):
                    failures.append(f"{name}/{c}: bad timings {t[:5]}")
                if not e["min"] <= e["median"] <= e["max"]:
                    failures.append(f"{name}/{c}: median {e['median']} outside [{e['min']}, {e['max']}]")
                if e["max_error"] > 1.0:
                    failures.append(f"{name}/{c}: error {e['max_error']} of the tolerance")
            if "rerun_seconds" not in k or k.get("rerun_cache") != "hit":
                failures.append(f"{name}: the re-run was not answered from the cache ({k.get('rerun_cache')})")
        sys.path.insert(0, str(ROOT / "bench" / "harness"))
        import report
        md, svg = report.markdown(doc, "chart.svg"), report.svg_chart(doc)
        if "## Summary" not in md or not svg.startswith("<svg") or "<rect" not in svg:
            failures.append("the report or chart did not render")
        print(f"{len(doc['kernels'])} kernels x {len(expected)} contestants checked in "
              f"{doc['wall_seconds']:.0f} s")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
