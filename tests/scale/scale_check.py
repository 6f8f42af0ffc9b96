#!/usr/bin/python3
"""Long programs through every command: no crash, no hang, a documented answer.

Each case generates a program (never committed: 100,000 lines), runs one axon
command on it under a timeout and checks the exit status and a substring of
its output. The programs: chains of 100,000 assignments (one op after another,
mixed ops, and each value used twice, so that a walk that does not share
subexpressions is exponential), chains of reductions, and expressions nested
to the parser's limit. What each command does with them, and the limits that
decide it, is in README.md ("Limits").

A case fails on a different exit status, a missing substring, a timeout or a
sanitizer report. The timeouts catch hangs; in a release build the whole set
takes under a minute.

usage: scale_check.py --axon PATH [--filter SUBSTR] [--timeout-scale X] [--quick] [--show]

--quick (the sanitizer build's reduced form) leaves out the cases that spend
their time in Z3 and the interpreter rather than in deep walks: SLOW below.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

SANITIZER_MARKERS = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")


def program(params, lines, result):
    return "import numpy as np\n\n\ndef f(%s):\n%s    return %s\n" % (
        params,
        "".join("    %s\n" % line for line in lines),
        result,
    )


def chain(n):
    """a0 = x + 1.0; a1 = a0 * 0.5; a2 = a1 + 1.0; ... (values stay near 2)."""
    lines = ["a0 = x + 1.0"] + ["a%d = a%d %s" % (i, i - 1, "* 0.5" if i % 2 else "+ 1.0") for i in range(1, n)]
    return program('x: "f32[N]"', lines, "a%d" % (n - 1))


def mixed(n, last="a%d / 2.0"):
    ops = ["a%d * 0.5", "np.tanh(a%d)", "a%d - y", "np.maximum(a%d, x)", "np.exp(a%d)", "a%d / 2.0"]
    lines = ["a0 = x + y"] + ["a%d = %s" % (i, (ops[i % len(ops)] if i < n - 1 else last) % (i - 1)) for i in range(1, n)]
    return program('x: "f32[N]", y: "f32[N]"', lines, "a%d" % (n - 1))


def dag(n):
    """Each value used twice: a tree walk of the result visits 2^n nodes."""
    lines = ["a0 = x * 0.5"] + ["a%d = %s" % (i, "np.tanh(a%d + a%d)" % (i - 1, i - 1)) for i in range(1, n)]
    return program('x: "f32[N]"', lines, "a%d" % (n - 1))


def sums(n, method=False):
    """n reductions in a row, each keeping its axis."""
    step = "a%d.sum(axis=0, keepdims=True)" if method else "np.sum(a%d, axis=0, keepdims=True)"
    lines = ["a0 = x * 1.0" if method else "a0 = x"] + ["a%d = %s" % (i, step % (i - 1)) for i in range(1, n)]
    return program('x: "f32[N]"', lines, "a%d" % (n - 1))


def nested_sums(n):
    """n sums nested in one expression."""
    return program('x: "f32[N]"', [], "np.sum(" * n + "x" + ", axis=0, keepdims=True)" * n)


def parentheses(n):
    return program('x: "f32[N]"', [], "(" * n + "x" + ")" * n)


N = 100_000
# name, {file: program}, args (FILE names replaced by paths), exit status, substring of stdout + stderr, timeout (s)
CASES = [
    ("check_chain", {"a.py": chain(N)}, "check a.py", 0, "return", 60),
    ("run_chain", {"a.py": chain(N)}, "run a.py --dims N=3", 0, "result: f32[N]", 60),
    ("run_dag", {"a.py": dag(N)}, "run a.py --dims N=3", 0, "", 60),
    ("check_mixed", {"a.py": mixed(N)}, "check a.py", 0, "", 60),
    # The interpreter refutes at any length; proofs stop at the prover's size limit.
    ("verify_chain_size_limit", {"a.py": chain(N), "b.py": chain(N)}, "verify a.py b.py", 4, "size limit", 120),
    ("verify_dag_size_limit", {"a.py": dag(20_000), "b.py": dag(20_000)}, "verify a.py b.py", 4, "size limit", 120),
    ("verify_mixed_refuted", {"a.py": mixed(N), "b.py": mixed(N, "a%d / 3.0")}, "verify a.py b.py", 3, "refuted", 120),
    ("verify_sums_2000", {"a.py": sums(2000), "b.py": sums(2000, method=True)}, "verify a.py b.py", 4, "unknown", 120),
    # Below the prover's size limit: every sum after the first is over an axis of length 1,
    # unrolled by the expanded normal form, so the 900 folds collapse and the pair is proved.
    ("verify_sums_900", {"a.py": sums(900), "b.py": sums(900, method=True)}, "verify a.py b.py", 0, "proved", 120),
    ("explore_chain", {"a.py": chain(N)}, "explore a.py", 0, "node limit", 120),
    ("explore_sums", {"a.py": sums(N)}, "explore a.py", 0, "1 variant(s) shown", 120),
    ("explore_sums_2000", {"a.py": sums(2000)}, "explore a.py --limit 5000", 0, "variant", 120),
    ("explore_dag", {"a.py": dag(N)}, "explore a.py", 0, "node limit", 120),
    ("lower_chain", {"a.py": chain(N)}, "lower a.py --dims N=3", 1, "limit", 120),
    ("lower_chain_10000", {"a.py": chain(10_000)}, "lower a.py --dims N=3", 0, "return out0", 120),
    ("optimize_chain", {"a.py": chain(N)}, "optimize a.py --dims N=3 -o out --no-cache", 1, "limit", 120),
    ("nested_sums_parser_limit", {"a.py": nested_sums(2000)}, "verify a.py a.py", 1, "nested too deeply", 60),
    ("parentheses_parser_limit", {"a.py": parentheses(2000)}, "explore a.py", 1, "nested too deeply", 60),
]


# Slow without reaching deeper than the others: left out by --quick.
# lower_chain_10000 lowers 157 stages of at most 64 fused ops each (no deeper
# than lower_chain's refusal walk), and its time goes to synthesis and Z3:
# under the sanitizers, minutes.
SLOW = {"verify_chain_size_limit", "verify_mixed_refuted", "verify_sums_900", "lower_chain_10000"}


def run_case(axon, case, scale, show):
    name, files, args, status, expect, timeout = case
    with tempfile.TemporaryDirectory(prefix="axon_scale_") as tmp:
        for file, text in files.items():
            with open(os.path.join(tmp, file), "w") as f:
                f.write(text)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        start = time.monotonic()
        try:
            r = subprocess.run([axon] + args.split(), cwd=tmp, capture_output=True, text=True, errors="replace",
                               timeout=timeout * scale, env=env)
        except subprocess.TimeoutExpired:
            return False, "timed out after %.0f s" % (timeout * scale), ""
        seconds = time.monotonic() - start
        out = r.stdout + r.stderr
        if show:
            print(out[-2000:])
        if any(m in out for m in SANITIZER_MARKERS):
            return False, "sanitizer report", out[-3000:]
        if r.returncode != status:
            return False, "exit status %d, expected %d" % (r.returncode, status), out[-3000:]
        if expect not in out:
            return False, "no %r in the output" % expect, out[-3000:]
        return True, "%.1f s" % seconds, ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--axon", required=True)
    parser.add_argument("--filter", default="")
    parser.add_argument("--timeout-scale", type=float, default=1.0, help="multiplies every timeout (sanitizer builds)")
    parser.add_argument("--quick", action="store_true", help="leave out the SLOW cases")
    parser.add_argument("--show", action="store_true")
    opts = parser.parse_args()
    failed = 0
    for case in CASES:
        if opts.filter not in case[0] or (opts.quick and case[0] in SLOW):
            continue
        ok, reason, out = run_case(os.path.abspath(opts.axon), case, opts.timeout_scale, opts.show)
        print("%s %s (%s)" % ("ok  " if ok else "FAIL", case[0], reason), flush=True)
        if not ok:
            failed += 1
            print("    " + out[-1500:].replace("\n", "\n    "))
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
