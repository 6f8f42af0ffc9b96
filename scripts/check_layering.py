#!/usr/bin/env python3
"""The stage layering of src/: a stage includes only itself and earlier stages.

The order is the order of the axon_stage(...) calls in CMakeLists.txt (one
library per stage, DESIGN.md section 5), followed by the folders built after
them: src/cli (the axon command) and python/ (the package's bindings). An
#include "X/..." in src/S/ (or python/) is a violation when X is a stage
that comes after S, or a folder of src/ that is no stage at all.

    scripts/check_layering.py [--root DIR]     exit 0 when clean, 1 with one line per violation
    scripts/check_layering.py --self-test      the check finds the violations of a made-up tree
"""
import argparse
import os
import re
import sys
import tempfile

STAGE_CALL = re.compile(r"^\s*axon_stage\(\s*(\w+)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', re.M)
AFTER_STAGES = ["cli", "python"]


def stage_order(root):
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as f:
        stages = STAGE_CALL.findall(f.read())
    return stages + [s for s in AFTER_STAGES if s not in stages]


def sources(root):
    """(stage, path) for every C++ source of src/<stage>/ and python/."""
    for top, stage_of in (("src", None), ("python", "python")):
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for folder, _, files in os.walk(base):
            rel = os.path.relpath(folder, base)
            stage = stage_of or rel.split(os.sep)[0]
            if stage == ".":
                continue
            for name in sorted(files):
                if name.endswith((".cpp", ".h", ".def")):
                    yield stage, os.path.join(folder, name)


def violations(root):
    order = stage_order(root)
    rank = {s: i for i, s in enumerate(order)}
    found = []
    for stage, path in sources(root):
        if stage not in rank:
            found.append(f"{os.path.relpath(path, root)}: folder '{stage}' is no stage of CMakeLists.txt")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for match in INCLUDE.finditer(text):
            used = match.group(1)
            if not os.path.isdir(os.path.join(root, "src", used)):
                continue  # a system or third-party header
            line = text.count("\n", 0, match.start()) + 1
            where = f"{os.path.relpath(path, root)}:{line}"
            if used not in rank:
                found.append(f"{where}: includes '{used}/', which is no stage")
            elif rank[used] > rank[stage]:
                found.append(f"{where}: stage '{stage}' includes '{used}/', a later stage "
                             f"(order: {' < '.join(order)})")
    return found


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def put(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        put("CMakeLists.txt", "axon_stage(ir)\naxon_stage(search axon_ir)\naxon_stage(targets axon_search)\n")
        put("src/ir/a.h", '#include <vector>\n#include "ir/b.h"\n')
        put("src/ir/b.h", '#include "search/api.h"\n')          # up: a violation
        put("src/search/api.h", '#include "ir/a.h"\n')
        put("src/search/x.cpp", '#include "targets/cpu.h"\n')  # up: a violation
        put("src/targets/cpu.h", '#include "search/api.h"\n#include "ir/a.h"\n')
        put("src/cli/main.cpp", '#include "targets/cpu.h"\n')
        put("src/stray/y.cpp", "\n")                          # no stage
        got = violations(root)
    expected = ["src/ir/b.h:1", "src/search/x.cpp:1", "src/stray/y.cpp"]
    ok = len(got) == len(expected) and all(any(g.startswith(e) for g in got) for e in expected)
    print("\n".join(got))
    print("self-test:", "1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = violations(os.path.abspath(args.root))
    for v in found:
        print(v)
    order = stage_order(os.path.abspath(args.root))
    print(f"layering: {len(found)} violation(s); stages {' < '.join(order)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
