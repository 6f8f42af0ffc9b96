"""The benchmark's derived figures, its Markdown report and its SVG chart.

Speed-up of Axon over a baseline = the baseline's median / Axon's median.
The limit of a kernel is its roofline time: the larger of its contraction
FLOPs at the measured FMA peak and its minimum traffic (one read of every
input, one write of every output) at the measured streaming-copy bandwidth;
"% of limit" is that time over the measured median.
"""
import html
import math

BASELINES = ["numpy", "torch_eager", "torch_compile", "torch_max_autotune", "jax", "openvino", "expert"]
# torch.compile's two modes, as one peer in the targets: the faster per kernel.
TORCH_COMPILE_MODES = ["torch_compile", "torch_max_autotune"]
ABLATIONS = ["axon_no_algebra", "axon_no_fusion", "axon_default_tiling", "axon_no_tuning"]
LABELS = {
    "axon": "axon", "axon_no_algebra": "no algebra", "axon_no_fusion": "no fusion",
    "axon_default_tiling": "default tiling", "axon_no_tuning": "no tuning", "numpy": "numpy", "torch_eager": "torch eager",
    "torch_compile": "torch.compile", "torch_max_autotune": "torch.compile max-autotune", "jax": "jax",
    "openvino": "OpenVINO", "expert": "expert library", "torch_compile_best": "torch.compile (faster mode)",
}
FAMILIES = [("elementwise", "element-wise / normalization"), ("matmul", "matmul family"),
            ("attention", "attention family")]
COLORS = {"numpy": "#8c8c8c", "torch_eager": "#e15759", "torch_compile": "#f28e2b",
          "torch_max_autotune": "#edc948", "jax": "#4e79a7", "openvino": "#b07aa1", "expert": "#59a14f"}


def median_of(result, name):
    c = result.get("contestants", {}).get(name, {})
    return c.get("median") if c.get("status") == "ok" else None


def add_derived(result, limits):
    """Speed-ups, the roofline limit and the % of it each contestant reaches."""
    flops, nbytes = result.get("flops", 0), result.get("bytes", 0)
    compute_s = flops / (limits["fma_gflops"] * 1e9)
    memory_s = nbytes / (limits["copy_gbps"] * 1e9)
    result["bound"] = "compute" if compute_s > memory_s else "memory"
    result["limit_seconds"] = max(compute_s, memory_s)
    axon = median_of(result, "axon")
    speedups = {}
    for name, c in result.get("contestants", {}).items():
        m = median_of(result, name)
        if m:
            c["pct_of_limit"] = 100.0 * result["limit_seconds"] / m
            if axon and name != "axon":
                speedups[name] = m / axon
    modes = [median_of(result, b) for b in TORCH_COMPILE_MODES if median_of(result, b)]
    if axon and modes:
        speedups["torch_compile_best"] = min(modes) / axon
    result["speedup"] = speedups
    best = [median_of(result, b) for b in BASELINES if median_of(result, b)]
    if axon and best:
        result["speedup_vs_best"] = min(best) / axon


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt_x(v):
    return f"{v:.2f}x" if v else "-"


def fmt_ms(seconds):
    if not seconds:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.1f}"


def summaries(doc):
    """Per family: geometric-mean speed-up over each baseline and the mean % of the limit."""
    rows = []
    for family, label in FAMILIES + [("all", "whole suite")]:
        ks = [k for k in doc["kernels"] if (family == "all" or k.get("family") == family) and median_of(k, "axon")]
        if not ks:
            continue
        row = {"family": label, "kernels": len(ks)}
        for b in BASELINES:
            row[b] = geomean([k["speedup"].get(b) for k in ks])
        pcts = [k["contestants"]["axon"].get("pct_of_limit") for k in ks]
        row["pct"] = sum(pcts) / len(pcts)
        rows.append(row)
    return rows


def targets(doc):
    """The benchmark issue's targets, each with its measured value and verdict."""
    ks = [k for k in doc["kernels"] if median_of(k, "axon")]
    out = []

    def add(what, value, met):
        out.append((what, value, "met" if met else "not met"))

    for b, goal in (("torch_compile_best", 1.3), ("expert", 1.1)):
        g = geomean([k["speedup"].get(b) for k in ks])
        add(f"whole suite: geometric-mean speed-up over {LABELS[b]} >= {goal}x", fmt_x(g), g is not None and g >= goal)
    att = [k for k in ks if k.get("family") == "attention"]
    g = geomean([k["speedup"].get("torch_compile_best") for k in att])
    add(f"attention family: geometric-mean speed-up over {LABELS['torch_compile_best']} >= 1.2x", fmt_x(g),
        g is not None and g >= 1.2)
    slower = [f"{k['kernel']} {k['speedup_vs_best']:.2f}x" for k in ks
              if k.get("speedup_vs_best") and k["speedup_vs_best"] < 0.9]
    add("every kernel >= 0.9x its best baseline", "below: " + (", ".join(slower) or "none"), not slower)
    mem = [(k["kernel"], k["contestants"]["axon"]["pct_of_limit"]) for k in ks if k.get("bound") == "memory"]
    low = [f"{n} {p:.0f}%" for n, p in mem if p < 75]
    add("memory-bound kernels >= 75% of streaming-copy bandwidth", "below: " + (", ".join(low) or "none"),
        bool(mem) and not low)
    big = [k for k in ks if k["kernel"] == "matmul" and k.get("bound") == "compute"]
    for k in big:
        fma = k["flops"] / k["contestants"]["axon"]["median"] / 1e9
        pct = 100 * fma / doc["limits"]["fma_gflops"]
        sizes = ",".join(f"{a}={b}" for a, b in k["sizes"].items())
        add(f"matmul {sizes} >= 85% of FMA peak", f"{fma:.0f} GFLOP/s = {pct:.0f}%", pct >= 85)
    walls = [(k["kernel"], k["search"]["axon"]["wall_seconds"]) for k in ks if "axon" in k.get("search", {})]
    slow = [f"{n} {s:.0f} s" for n, s in walls if s > 120]
    add("optimize time per kernel <= 2 min", "over: " + (", ".join(slow) or "none"), bool(walls) and not slow)
    reruns = [(k["kernel"], k["rerun_seconds"]) for k in ks if "rerun_seconds" in k]
    slow = [f"{n} {s:.2f} s" for n, s in reruns if s >= 1.0]
    add("cache-hit re-run < 1 s", "over: " + (", ".join(slow) or "none"), bool(reruns) and not slow)
    return out


def markdown(doc, svg_name):
    lim, after = doc["limits"], doc.get("limits_after", doc["limits"])
    contestants = [c for c in ["axon"] + ABLATIONS + BASELINES if any(c in k.get("contestants", {})
                                                                       for k in doc["kernels"])]
    md = [f"# Axon benchmark: {doc['machine']}, {doc['date']}", ""]
    md.append(f"`{doc['command']}` ({'quick' if doc['quick'] else 'full'} run, preset `{doc['preset']}`, "
              f"{doc['rounds']} interleaved rounds"
              + (f" with {doc['pause_seconds']:g} s idle before each contestant" if doc.get("pause_seconds") else "")
              + f", {doc['variants']} variants per search); "
              f"wall time {doc['wall_seconds'] / 60:.1f} min.")
    md += ["", "## Summary", "",
           "Geometric-mean speed-up of Axon's kernel over each baseline (baseline median / Axon median), "
           "and the mean share of each kernel's roofline limit that Axon reaches.", "",
           "| group | kernels | " + " | ".join(f"vs {LABELS[b]}" for b in BASELINES) + " | % of limit |",
           "|---|---|" + "---|" * len(BASELINES) + "---|"]
    for r in summaries(doc):
        md.append(f"| {r['family']} | {r['kernels']} | " + " | ".join(fmt_x(r[b]) for b in BASELINES) +
                  f" | {r['pct']:.0f}% |")
    md += ["", f"![speed-up per kernel]({svg_name})", "", "## Targets", "", "| target | measured | verdict |",
           "|---|---|---|"]
    md += [f"| {w} | {v} | **{m}** |" for w, v, m in targets(doc)]
    md += ["", "## Kernels (median ms)", "",
           "| kernel | sizes | " + " | ".join(LABELS[c] for c in contestants) +
           " | axon vs best baseline | bound | axon % of limit |",
           "|---|---|" + "---|" * len(contestants) + "---|---|---|"]
    notes = []
    for k in doc["kernels"]:
        if k.get("error") and not k.get("contestants"):
            md.append(f"| {k['kernel']} | - | failed: {html.escape(k['error'][:120])} |")
            continue
        cells = []
        for c in contestants:
            e = k["contestants"].get(c)
            if not e:
                cells.append("-")
            elif e.get("status") == "ok" and e.get("median"):
                cells.append(fmt_ms(e["median"]))
            else:
                cells.append("n/a")
                notes.append(f"- {k['kernel']}, {LABELS[c]}: {e.get('status')}")
        pct = k.get("contestants", {}).get("axon", {}).get("pct_of_limit")
        md.append(f"| {k['kernel']} | {','.join(f'{a}={b}' for a, b in k['sizes'].items())} | " + " | ".join(cells) +
                  f" | {fmt_x(k.get('speedup_vs_best'))} | {k.get('bound', '-')} | "
                  f"{f'{pct:.0f}%' if pct else '-'} |")
    if notes:
        md += ["", "Not timed (each was checked against the reference first):", ""] + notes
    md += ["", "Each figure is the median of every timed call over the rounds (min and max are in the .json); "
           "every contestant's result was checked against the float64 reference interpreter "
           "(rtol 1e-4, atol 1e-5 x reduction length) before it was timed."]
    if any(a in contestants for a in ABLATIONS):
        md += ["", "## Ablations", "", "Axon's median over the same search with one stage switched off "
               "(> 1x: that stage helps).", "", "| kernel | " + " | ".join(LABELS[a] for a in ABLATIONS) + " |",
               "|---|" + "---|" * len(ABLATIONS)]
        for k in doc["kernels"]:
            if median_of(k, "axon"):
                md.append(f"| {k['kernel']} | " + " | ".join(fmt_x(k["speedup"].get(a)) for a in ABLATIONS) + " |")
        gm = [geomean([k["speedup"].get(a) for k in doc["kernels"] if median_of(k, "axon")]) for a in ABLATIONS]
        md.append("| geometric mean | " + " | ".join(fmt_x(g) for g in gm) + " |")
    md += ["", "## Search cost", "",
           "Phase times of the full search (s): algebra (nu-graph), lowering (planning, tiling, synthesis, proofs, "
           "emission), reference (float64 interpreter), compile, measurement; then the wall time of "
           "`axon optimize` and of an identical second run.", "",
           "| kernel | algebra | lowering | reference | compile | measure | candidates generated / compiled / valid "
           "| optimize wall | re-run |", "|---|---|---|---|---|---|---|---|---|"]
    for k in doc["kernels"]:
        s = k.get("search", {}).get("axon")
        if not s:
            continue
        p, c = s["phase_seconds"], s["candidates"]
        md.append(f"| {k['kernel']} | {p['algebra']:.2f} | {p['lowering']:.2f} | {p['reference']:.2f} | "
                  f"{p['compile']:.2f} | {p['measure']:.2f} | {c['generated']} / {c['compiled']} / {c['valid']} | "
                  f"{s['wall_seconds']:.1f} | {k.get('rerun_seconds', 0):.2f} ({k.get('rerun_cache', '-')}) |")
    md += ["", "## Machine and configuration", "",
           f"- limits at start: FMA peak {lim['fma_gflops']:.0f} GFLOP/s ({lim['fma_gflops_1']:.0f} on one thread, "
           f"{lim['vector']}), streaming-store copy {lim['copy_gbps']:.1f} GB/s ({lim['copy_gbps_1']:.1f} on one "
           f"thread), {lim['threads']} threads; at the end: {after['fma_gflops']:.0f} GFLOP/s, "
           f"{after['copy_gbps']:.1f} GB/s",
           "- versions: " + ", ".join(f"{k} {v}" for k, v in doc["versions"].items())]
    for c, env in doc.get("environments", {}).items():
        setting = doc.get("settings", {}).get(c, "")
        md.append(f"- {LABELS.get(c, c)}: environment `{' '.join(f'{a}={b}' for a, b in env.items()) or 'default'}`"
                  + (f"; {setting}" if setting else ""))
    return "\n".join(md) + "\n"


def svg_chart(doc):
    """Horizontal bars: Axon's speed-up over each baseline per kernel, log scale."""
    ks = [k for k in doc["kernels"] if median_of(k, "axon")]
    present = [b for b in BASELINES if any(b in k["speedup"] for k in ks)]
    bar, gap, left, width, top = 7, 8, 150, 520, 40
    lo, hi = 1 / 8, 64
    values = [k["speedup"][b] for k in ks for b in present if b in k["speedup"]]
    if values:
        lo = min(lo, 2 ** math.floor(math.log2(min(values))))
        hi = max(hi, 2 ** math.ceil(math.log2(max(values))))

    def x(v):
        return left + width * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))

    height = top + len(ks) * (len(present) * bar + gap) + 60
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" height="{height}" '
         f'font-family="sans-serif" font-size="11">',
         f'<text x="{left}" y="16" font-size="13">Axon speed-up over each baseline '
         f'({html.escape(doc["machine"])}, {doc["date"]}; log scale, &gt; 1 = Axon faster)</text>']
    e = lo
    while e <= hi + 1e-9:
        s.append(f'<line x1="{x(e):.1f}" y1="{top - 6}" x2="{x(e):.1f}" y2="{height - 50}" '
                 f'stroke="{"#000" if abs(e - 1) < 1e-9 else "#ddd"}"/>')
        s.append(f'<text x="{x(e):.1f}" y="{height - 38}" text-anchor="middle">'
                 f'{e:g}x</text>')
        e *= 2
    y = top
    for k in ks:
        s.append(f'<text x="{left - 6}" y="{y + len(present) * bar / 2 + 4:.1f}" text-anchor="end">'
                 f'{html.escape(k["kernel"])}</text>')
        for b in present:
            v = k["speedup"].get(b)
            if v:
                x0, x1 = sorted((x(1), x(v)))
                s.append(f'<rect x="{x0:.1f}" y="{y}" width="{max(x1 - x0, 1):.1f}" height="{bar - 1}" '
                         f'fill="{COLORS[b]}"><title>{html.escape(k["kernel"])} vs {LABELS[b]}: {v:.2f}x</title>'
                         f'</rect>')
            y += bar
        y += gap
    lx = left
    for b in present:
        s.append(f'<rect x="{lx}" y="{height - 22}" width="10" height="10" fill="{COLORS[b]}"/>')
        s.append(f'<text x="{lx + 14}" y="{height - 13}">{LABELS[b]}</text>')
        lx += 105
    s.append("</svg>")
    return "\n".join(s) + "\n"
