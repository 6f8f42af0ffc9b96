#!/usr/bin/env python3
"""`axon bench --target trn1` in reduced form: three kernels at their test sizes, quick. Each row
has Axon's simulated time, the naive proxy's and, where bench/nki has one, the hand-written
kernel's, and the speed-ups are those times' ratios; the markdown labels the proxy as a proxy."""
import json
import pathlib
import subprocess
import sys
import tempfile


def main():
    axon = sys.argv[1]
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([axon, "bench", "--target", "trn1", "--quick", "--preset", "test", "--out", tmp,
                            "--work", str(pathlib.Path(tmp, "work")), "rmsnorm", "silu", "transpose_matmul"],
                           capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            print(p.stdout + p.stderr)
            return 1
        results = list(pathlib.Path(tmp).glob("trn1-*-quick.json"))
        if len(results) != 1:
            print(f"expected one trn1-*-quick.json in the output, found {results}")
            return 1
        j = json.loads(results[0].read_text())
        md = results[0].with_suffix(".md").read_text()
        if j["timing"] != "simulated" or "simulated" not in md or "not the Neuron compiler" not in md:
            found.append("the results do not say that the times are simulated and the proxy is a proxy")
        rows = {r["kernel"]: r for r in j["kernels"]}
        for kernel, hand in [("rmsnorm", True), ("silu", False), ("transpose_matmul", True)]:
            r = rows.get(kernel)
            if r is None:
                found.append(f"{kernel}: no row")
                continue
            s = r["seconds"]
            for contestant in ["axon", "naive"] + (["hand"] if hand else []):
                if not s.get(contestant, 0) > 0:
                    found.append(f"{kernel}: no {contestant} time ({r['notes']})")
            if not hand and "hand" in s:
                found.append(f"{kernel}: a hand time without a hand-written kernel")
            for k, v in r["speedup"].items():
                if abs(v - s[k] / s["axon"]) > 1e-9 * v:
                    found.append(f"{kernel}: the speed-up over {k} is not the ratio of the times")
        if not j["geomean"].get("naive"):
            found.append("no geometric mean over the naive proxy")
        if not any(e["kernel"] == "silu" for e in j["effects"]):
            found.append("the paper's SiLU effect is not reported")
    for f in found:
        print(f)
    print(f"{len(found)} failure(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
