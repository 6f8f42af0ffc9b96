#!/usr/bin/env python3
"""Compiles every emit text of the cpu hardware descriptions (hw/*.json) with
the description's prelude and compile_flags.

Each instruction becomes a function whose parameters are its operands, typed by
the emit conventions in the files' notes: an operand in dram is a float*; one in
a register space (xmm/ymm/zmm) is a float for f32[], a vector (__m128/__m256/
__m512) for f32[N], an array of N vectors for f32[N, N]. An emit containing
{result} is a statement writing through `result`; otherwise an expression, whose
(decayed) type must be the result's C type. Size names ({R}, {S}) are replaced
by the low and the high end of their limits (one function each).

usage: tests/hw/check_emits.py [hw/x.json ...]   (default: every cpu description)
Compiles with $CXX (default g++) -c -O1; exits 0 when everything compiles.
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.normpath(os.path.join(HERE, "..", "..", "hw"))
VECTOR = {"xmm": "__m128", "ymm": "__m256", "zmm": "__m512"}


def dims(type_text):
    m = re.fullmatch(r"\s*f32\[(.*)\]\s*", type_text)
    if not m:
        raise ValueError("unsupported type " + type_text)
    inner = m.group(1).strip()
    return [d.strip() for d in inner.split(",")] if inner else []


def c_type(space, type_text):
    """(declaration prefix, array suffix) of an operand's C variable."""
    if space == "dram":
        return "float*", ""
    d = dims(type_text)
    if not d:
        return "float", ""
    vector = VECTOR[space]
    if len(d) == 1:
        return vector, ""
    if len(d) == 2:
        return vector, "[" + d[0] + "]"
    raise ValueError("unsupported register type " + type_text)


def functions(desc):
    out = []
    for ins in desc["instructions"]:
        limits = ins.get("limits", {})
        choices = [{}]
        for name, (lo, hi) in limits.items():
            choices = [dict(c, **{name: v}) for c in choices for v in sorted({lo, hi})]
        for k, sizes in enumerate(choices):
            def sized(text):
                for name, v in sizes.items():
                    text = re.sub(r"\b%s\b" % re.escape(name), str(v), text)
                return text

            params = []
            for op in ins["operands"]:
                t, suffix = c_type(op["space"], sized(op["type"]))
                params.append("%s %s%s" % (t, op["name"], suffix))
            emit = ins["emit"]
            for name, v in sizes.items():
                emit = emit.replace("{%s}" % name, str(v))
            for op in ins["operands"]:
                emit = emit.replace("{%s}" % op["name"], op["name"])
            res = ins["result"]
            rt, rsuffix = c_type(res["space"], sized(res["type"]))
            fn = "emit_%s_%d" % (ins["name"], k)
            if "{result}" in emit:
                params.append("%s result%s" % (rt, rsuffix))
                body = "  %s;\n" % emit.replace("{result}", "result")
            else:
                body = ("  static_assert(std::is_same<std::decay_t<decltype(%s)>, %s>::value, \"%s: result type\");\n"
                        "  sink(%s);\n") % (emit, rt, ins["name"], emit)
            out.append("// %s %s\nvoid %s(%s) {\n%s}\n" % (ins["name"], sizes or "", fn, ", ".join(params), body))
    return out


def check(path, cxx):
    desc = json.load(open(path))
    if desc.get("target") != "cpu":
        return True
    prelude = desc.get("prelude")
    flags = desc.get("compile_flags", "").split()
    if not prelude:
        print("%s: no prelude; skipped" % path)
        return True
    source = ["#include \"%s\"" % prelude, "#include <type_traits>",
              "template <class T> void sink(const T& v) { asm volatile(\"\" : : \"g\"(&v) : \"memory\"); }", ""]
    fns = functions(desc)
    source += fns
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write("\n".join(source))
        name = f.name
    cmd = [cxx, "-std=c++17", "-O1", "-Wall", "-c", "-o", os.devnull, "-I", os.path.dirname(os.path.abspath(path))] + \
        flags + [name]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("%s: FAIL\n%s\n%s" % (path, " ".join(cmd), r.stderr))
        print("(generated source kept at %s)" % name)
        return False
    os.unlink(name)
    print("%s: %d emit functions compile with %s and %s" % (path, len(fns), prelude, " ".join(flags)))
    return True


def main():
    cxx = os.environ.get("CXX", "g++")
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(HW, "*.json")))
    ok = all([check(p, cxx) for p in paths])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
