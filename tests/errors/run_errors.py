#!/usr/bin/python3
"""Runs the bad-input corpus in tests/errors/ against an axon binary.

Every case must make axon fail cleanly: exit status exactly 1, a
"file:line:col: error: ..." line on stderr that contains the case's expected
text, no sanitizer report, no timeout, and no file left behind in the case's
directory (neither a file named by --out nor a temporary file).

A case is either a file tests/errors/<name>.py whose leading comment lines are
headers:

    # expect: 3:12: error: unknown name 'y'      (required: a substring of stderr)
    # args: run --dims M=4                       (optional; default "check")
    # setup: np.save("{dir}/x.npy", np.zeros((3, 4), np.float32))
                                                 (optional, repeatable)
    # program: none                              (optional: pass no program file)

or a "generated" case from the GENERATED table below, for inputs that must not
be committed as .py files (binary bytes, NUL bytes, tabs, huge files).

The program is copied to <tmp>/<name>.py and passed as the relative path
"<name>.py" right after the subcommand, with <tmp> (a fresh temporary
directory per case) as the working directory, so that command-line columns do
not depend on where the checkout lives. "{dir}" in args and setup lines is
replaced by <tmp>; "{prog}" in args places the program path explicitly
(it is then not inserted after the subcommand). Setup lines run with
/usr/bin/python3, numpy imported as np, in <tmp>.

usage: run_errors.py --axon PATH [--filter SUBSTR] [--timeout 20] [--show]
(with a sanitizer or Debug build, pass --timeout 120: gen_huge_file_8mb takes
about 25 s there and about 1 s in a release build)

Cases whose expectation is the message a user SHOULD see, where Axon currently
prints something else or crashes, fail until Axon is fixed: that is intended.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"
LOCATED_ERROR = re.compile(r"^[^\s:][^:]*:\d+:\d+: error: ", re.MULTILINE)
SANITIZER_MARKERS = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")
HEADER = re.compile(r"^#\s*(expect|args|setup|program):\s?(.*?)\s*$")


class Case:
    def __init__(self, name, expect, args="check", setup=(), program=True, source=None, generate=None):
        self.name = name
        self.expect = expect
        self.args = args
        self.setup = list(setup)
        self.program = program
        self.source = source  # path of a .py case file
        self.generate = generate  # function(path) writing the program file

    def write_program(self, path):
        if self.generate:
            self.generate(path)
        else:
            shutil.copyfile(self.source, path)


def read_case(path):
    name = os.path.splitext(os.path.basename(path))[0]
    headers = {"expect": [], "args": [], "setup": [], "program": []}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = HEADER.match(line.rstrip("\n"))
            if m:
                headers[m.group(1)].append(m.group(2))
    problems = []
    if len(headers["expect"]) != 1:
        problems.append("needs exactly one '# expect:' header")
    if len(headers["args"]) > 1:
        problems.append("has more than one '# args:' header")
    case = Case(
        name,
        headers["expect"][0] if headers["expect"] else "",
        headers["args"][0] if headers["args"] else "check",
        headers["setup"],
        program=not (headers["program"] and headers["program"][0] == "none"),
        source=path,
    )
    return case, problems


# ---- generated cases ------------------------------------------------------------

KERNEL_HEAD = 'import numpy as np\n\n\ndef k(x: "f32[M, N]"):\n'


def write_bytes(data):
    def generate(path):
        with open(path, "wb") as f:
            f.write(data)

    return generate


def write_text(text):
    return write_bytes(text.encode("utf-8"))


def big_valid_file(target_bytes, tail):
    """A kernel whose body is target_bytes of valid assignments, then `tail`."""

    def generate(path):
        line = b"    t = x * 2.0 + 1.0  # a valid statement, repeated to make a large file\n"
        head = KERNEL_HEAD.encode()
        count = max(0, (target_bytes - len(head)) // len(line))
        with open(path, "wb") as f:
            f.write(head)
            chunk = line * 10000
            written = 0
            while written + 10000 <= count:
                f.write(chunk)
                written += 10000
            f.write(line * (count - written))
            f.write(tail.encode())

    return generate


BIG_LINES = (8_000_000 - len(KERNEL_HEAD)) // len("    t = x * 2.0 + 1.0  # a valid statement, repeated to make a large file\n")

GENERATED = [
    # name, generator, args, expected stderr substring
    ("gen_empty_file", write_text(""), "check", "1:1: error: the file defines no kernel (no 'def')"),
    ("gen_blank_lines_only", write_text("\n\n   \n\t\n"), "check", "1:1: error: the file defines no kernel (no 'def')"),
    (
        "gen_binary_garbage",
        write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 8),
        "check",
        "1:8: error: file contains a NUL byte; is it a binary file?",
    ),
    (
        "gen_invalid_utf8",
        write_bytes(KERNEL_HEAD.encode() + b"    y = x + 1.0  # caf\xe9 latin-1\n    return y\n"),
        "check",
        "5:23: error: file is not valid UTF-8 text; is it a binary file?",
    ),
    (
        "gen_truncated_utf8",
        write_bytes(KERNEL_HEAD.encode() + b"    return x  # \xe2\x82"),
        "check",
        "5:17: error: file is not valid UTF-8 text; is it a binary file?",
    ),
    (
        "gen_nul_byte",
        write_bytes(KERNEL_HEAD.encode() + b"    y = x +\x00 1.0\n    return y\n"),
        "check",
        "5:12: error: file contains a NUL byte; is it a binary file?",
    ),
    (
        "gen_control_character",
        write_bytes(KERNEL_HEAD.encode() + b"    y = x \x01+ 1.0\n    return y\n"),
        "check",
        "5:11: error: invalid control character (byte 1)",
    ),
    (
        "gen_mixed_tabs_spaces",
        write_text(KERNEL_HEAD + "        y = x + 1.0\n\treturn y\n"),
        "check",
        "6:2: error: inconsistent use of tabs and spaces in indentation",
    ),
    (
        "gen_tab_then_spaces_unindent",
        write_text(KERNEL_HEAD.replace("def k", "def k") + "\ty = x + 1.0\n" + "    return y\n"),
        "check",
        "6:5: error: inconsistent use of tabs and spaces in indentation",
    ),
    (
        "gen_nested_parens_5000",
        write_text(KERNEL_HEAD + "    y = " + "(" * 5000 + "x" + ")" * 5000 + "\n    return y\n"),
        "check",
        "5:209: error: expression is nested too deeply (more than 200 levels)",
    ),
    (
        "gen_unary_minus_5000",
        write_text(KERNEL_HEAD + "    y = " + "-" * 5000 + "x\n    return y\n"),
        "check",
        "5:208: error: expression is nested too deeply (more than 200 levels)",
    ),
    (
        "gen_sum_chain_100000",
        write_text(KERNEL_HEAD + "    y = x" + " + x" * 100000 + "\n    return y\n"),
        "check",
        "5:2007: error: expression is too large (more than 500 nested operations)",
    ),
    (
        "gen_huge_file_8mb",
        big_valid_file(8_000_000, "    return undefined_name\n"),
        "check",
        "%d:12: error: unknown name 'undefined_name'" % (5 + BIG_LINES),
    ),
    (
        "gen_huge_file_20mb",
        big_valid_file(20 * 1024 * 1024, "    return x\n"),
        "check",
        "1:1: error: file is too large (",
    ),
    (
        "gen_crlf_syntax_error",
        write_text(KERNEL_HEAD.replace("\n", "\r\n") + "    y = x +\r\n    return y\r\n"),
        "check",
        "5:12: error: expected an expression, found end of line",
    ),
]


def generated_cases():
    cases = []
    for name, generate, args, expect in GENERATED:
        cases.append(Case(name, expect, args, generate=generate))
    return cases


# ---- running ---------------------------------------------------------------------


def output_paths(argv, cwd):
    """The files an --out option names, as absolute paths."""
    paths = []
    for i, word in enumerate(argv):
        value = None
        if word == "--out" and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith("--out="):
            value = word[len("--out="):]
        if value:
            paths += [os.path.join(cwd, p) for p in value.split(",") if p]
    return paths


def files_under(root):
    found = set()
    for dirpath, _, filenames in os.walk(root):
        for f in filenames:
            found.add(os.path.relpath(os.path.join(dirpath, f), root))
    return found


def run_case(case, axon, timeout):
    """Returns (ok, reason, stderr)."""
    tmp = tempfile.mkdtemp(prefix="axon-err-")
    try:
        prog_name = case.name + ".py"
        case.write_program(os.path.join(tmp, prog_name))
        for line in case.setup:
            code = "import numpy as np\n" + line.replace("{dir}", tmp)
            r = subprocess.run([PYTHON, "-c", code], cwd=tmp, capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                return False, "setup failed: %s\n%s" % (line, r.stderr), ""
        words = shlex.split(case.args)
        words = [w.replace("{dir}", tmp) for w in words]
        if any("{prog}" in w for w in words):
            words = [w.replace("{prog}", prog_name) for w in words]
        elif case.program and words:
            words.insert(1, prog_name)
        argv = [axon] + words
        # Only files the run itself could create are checked for leftovers;
        # any other new file in the directory (a temporary file) counts too.
        outs = [p for p in output_paths(words, tmp) if not os.path.exists(p)]
        before = files_under(tmp)
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
        try:
            r = subprocess.run(argv, cwd=tmp, capture_output=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired as e:
            err = (e.stderr or b"").decode("utf-8", "replace")
            return False, "timed out after %ss" % timeout, err
        except OSError as e:
            return False, "cannot run %s: %s" % (axon, e), ""
        err = r.stderr.decode("utf-8", "replace")
        reasons = []
        if r.returncode != 1:
            reasons.append("exit status %d, expected 1" % r.returncode)
        for marker in SANITIZER_MARKERS:
            if marker in err:
                reasons.append("sanitizer report (%s)" % marker)
                break
        if not LOCATED_ERROR.search(err):
            reasons.append("no 'file:line:col: error:' line on stderr")
        if case.expect not in err:
            reasons.append("expected text not in stderr")
        left = [os.path.relpath(p, tmp) for p in outs if os.path.exists(p)]
        left += sorted(f for f in files_under(tmp) - before if os.path.join(tmp, f) not in outs)
        if left:
            reasons.append("output file(s) left behind: %s" % ", ".join(left))
        return not reasons, "; ".join(reasons), err
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description="Run axon on the bad-input corpus.")
    parser.add_argument("--axon", required=True, help="path of the axon binary")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--timeout", type=float, default=20, help="seconds per case")
    parser.add_argument("--show", action="store_true", help="print every case's stderr")
    opts = parser.parse_args()
    axon = os.path.abspath(opts.axon)
    if not os.access(axon, os.X_OK):
        print("run_errors.py: %s is not an executable" % axon, file=sys.stderr)
        return 2

    cases, bad = [], []
    for entry in sorted(os.listdir(HERE)):
        if not entry.endswith(".py") or entry == os.path.basename(__file__):
            continue
        case, problems = read_case(os.path.join(HERE, entry))
        if problems:
            bad.append((case.name, "; ".join(problems)))
        cases.append(case)
    cases += generated_cases()
    names = [c.name for c in cases]
    for n in set(names):
        if names.count(n) > 1:
            bad.append((n, "duplicate case name"))
    cases = [c for c in cases if opts.filter in c.name]

    passed = failed = 0
    for name, problem in bad:
        if opts.filter in name:
            print("FAIL %s: malformed case: %s" % (name, problem))
            failed += 1
    bad_names = {n for n, _ in bad}
    for case in cases:
        if case.name in bad_names:
            continue
        ok, reason, err = run_case(case, axon, opts.timeout)
        if ok:
            passed += 1
            print("PASS %s" % case.name)
        else:
            failed += 1
            print("FAIL %s: %s" % (case.name, reason))
            print("    expected: %s" % case.expect)
            shown = err if len(err) < 4000 else err[:4000] + "\n... (%d more characters)" % (len(err) - 4000)
            print("    actual stderr:\n" + "".join("      | " + l + "\n" for l in shown.splitlines()))
        if opts.show and ok:
            print("".join("      | " + l + "\n" for l in err.splitlines()), end="")
    print("%d passed, %d failed, %d total" % (passed, failed, passed + failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
