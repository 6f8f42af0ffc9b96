#!/usr/bin/env python3
"""`axon optimize --target trn1` chooses by the timing model: search.json says
"timing": "simulated" with the chosen kernel's simulated seconds, every
measured candidate is valid under the NKI simulator, the chosen one has the
shortest simulated time of them (report.md's table), the naive proxy is timed
beside it (search.json's baselines), and the reports show where its time went
(engines, a timeline picture, timeline.json). Above 640 a size is validated
smaller: search.json's "validated_at" names the check sizes (each size over 640
becomes 640 plus its remainder modulo 128), the report says so, and the time is
still that of the requested sizes (a dry run there)."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def check(axon, program, dims, validated_at=None):
    with tempfile.TemporaryDirectory() as out:
        cmd = [axon, "optimize", str(ROOT / program), "--target", "trn1", "--dims", dims, "-o", out,
               "--no-cache", "--quiet", "--max-candidates", "6", "--variants", "2"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            return [f"{program}: exit {p.returncode}: {p.stdout}{p.stderr}"]
        found = []
        j = json.loads(pathlib.Path(out, "search.json").read_text())
        if validated_at and j.get("validated_at") != validated_at:
            found.append(f"{program}: validated at {j.get('validated_at')!r}, not {validated_at!r}")
        if not validated_at and j.get("validated_at") != j["sizes"]:
            found.append(f"{program}: validated at {j.get('validated_at')!r}, not at the requested {j['sizes']!r}")
        if validated_at and f"- validated at {validated_at}:" not in pathlib.Path(out, "report.md").read_text():
            found.append(f"{program}: report.md does not say where candidates were validated")
        if j["timing"] != "simulated":
            found.append(f"{program}: timing is {j['timing']!r}, not 'simulated'")
        if not j["median_seconds"] or j["median_seconds"] <= 0:
            found.append(f"{program}: no simulated time ({j['median_seconds']!r})")
        if "numpy" in j and "median_seconds" in j["numpy"]:
            found.append(f"{program}: a simulated time compared with NumPy")
        naive = j.get("baselines", {}).get("naive", {})
        if not naive.get("seconds", 0) > 0 or "proxy" not in naive.get("label", ""):
            found.append(f"{program}: no naive proxy timed beside the kernel, labeled a proxy ({naive!r})")
        elif abs(naive["speedup"] - naive["seconds"] / j["median_seconds"]) > 1e-9 * naive["speedup"]:
            found.append(f"{program}: the speed-up over the naive proxy is not its time over the kernel's")
        timeline = pathlib.Path(out, "timeline.json")
        if not timeline.exists() or not json.loads(timeline.read_text()).get("traceEvents"):
            found.append(f"{program}: no Chrome trace of the chosen kernel (timeline.json)")
        html = pathlib.Path(out, "report.html").read_text()
        if 'aria-label="simulated timeline"' not in html:
            found.append(f"{program}: report.html has no timeline picture")
        report = pathlib.Path(out, "report.md").read_text()
        if "## Where the time goes (simulated)" not in report or "| tensor |" not in report:
            found.append(f"{program}: report.md does not say where the simulated time went")
        table = report[report.index("## Candidates"):report.index("## Chosen variant")]
        rows = [line.split("|") for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
        times, chosen = [], None
        for cells in rows:
            status = cells[5].strip()
            if status.startswith("cut off"):
                continue
            if not status.startswith("valid"):
                found.append(f"{program}: a candidate is not valid: {'|'.join(cells)}")
                continue
            t = float(cells[6])
            times.append(t)
            if "(chosen)" in cells[2]:
                chosen = t
        if chosen is None or chosen > min(times) * 1.0001:
            found.append(f"{program}: the chosen time {chosen} is not the shortest of {sorted(times)}")
        return found


def main():
    axon = sys.argv[1]
    found = []
    for program, dims in [("bench/kernels/softmax_matmul.py", "test"), ("bench/kernels/rmsnorm.py", "M=130,N=65")]:
        found += check(axon, program, dims)
    # Timed at M=2000 and N=1500, validated at M=720 and N=732.
    found += check(axon, "bench/kernels/rmsnorm_matmul.py", "M=2000,K=96,N=1500", "K=96,M=720,N=732")
    for f in found:
        print(f)
    print(f"{len(found)} failure(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
