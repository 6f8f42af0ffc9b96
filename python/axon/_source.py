"""Where a kernel's program is: a function's own source, or a path.

A function is usually defined in a script that also imports axon and calls
it; the NumPy subset covers the kernel, not the script. So a function's
program is carved out of its file: the `import numpy` statements, the
function, the module-level functions and constants it uses (transitively)
and SIZES, each at its own lines (everything else blanked), so messages
point at the real file:line:col.
"""

import ast
import inspect
import os

from .errors import Error


def _names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _free_names(fn):
    """The names a function reads that it does not bind itself: its
    parameters and local assignments shadow the module's names."""
    local = {a.arg for a in fn.args.args + fn.args.kwonlyargs + fn.args.posonlyargs}
    local |= {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = set()
    for part in fn.body + fn.args.defaults + [a.annotation for a in fn.args.args if a.annotation]:
        read |= _names(part)
    return read - local


def _numpy_import(node, lines):
    """The text of an import of numpy at its line: as written, or, for
    `import numpy as np, axon`, only its numpy part; None for other statements."""
    if isinstance(node, ast.ImportFrom) and node.module == "numpy":
        return None if node.lineno != node.end_lineno else lines[node.lineno - 1]
    if not isinstance(node, ast.Import) or node.lineno != node.end_lineno:
        return None
    numpy = [a for a in node.names if a.name == "numpy"]
    if not numpy:
        return None
    if len(numpy) == len(node.names):
        return lines[node.lineno - 1]
    return " " * node.col_offset + "import " + ", ".join(
        "numpy" + (f" as {a.asname}" if a.asname else "") for a in numpy)


def carve(text, entry):
    """The program of function `entry` in module source `text`, at its lines."""
    tree = ast.parse(text)
    lines = text.splitlines()
    out = [""] * len(lines)
    defs, constants, kept = {}, {}, []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defs[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            constants[node.targets[0].id] = node
        elif _numpy_import(node, lines) is not None:
            out[node.lineno - 1] = _numpy_import(node, lines)
    if entry not in defs:
        raise Error(f"no top-level function '{entry}' in its file")
    wanted, todo = set(), [entry]
    while todo:
        name = todo.pop()
        if name in wanted:
            continue
        wanted.add(name)
        node = defs.get(name) or constants.get(name)
        used = _free_names(node) if isinstance(node, ast.FunctionDef) else _names(node.value)
        todo.extend(n for n in used if n in defs or n in constants)
    if "SIZES" in constants:
        wanted.add("SIZES")
    kept += [node for name, node in {**constants, **defs}.items() if name in wanted]
    for node in kept:
        for i in range(node.lineno - 1, node.end_lineno):  # a def from its `def` line: decorators stay out
            out[i] = lines[i]
    # The entry is the last def of the file the C++ side reads, unless named.
    return "\n".join(out) + "\n"


def program_of(fn_or_path, entry=None):
    """(file, text, entry): for a path, the file itself (text None) and the
    entry given, else its last def; for a function written in the NumPy
    subset, its file, the program carved out of it and its name."""
    target = getattr(fn_or_path, "__axon_function__", fn_or_path)  # an axon.jit wrapper
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target), None, entry
    if callable(target):
        try:
            file = inspect.getsourcefile(target)
        except TypeError:
            file = None
        if not file or not os.path.exists(file):
            raise Error(f"the source file of {target!r} cannot be found (define it in a .py file)")
        name = getattr(target, "__name__", None)
        if entry is not None and entry != name:
            raise Error(f"entry '{entry}' was given for the function '{name}'")
        if getattr(target, "__qualname__", name) != name:
            raise Error(f"'{target.__qualname__}' is not a module-level function (define the kernel at the top "
                        "level of its file)")
        with open(file, encoding="utf-8") as f:
            text = f.read()
        try:
            carved = carve(text, name)
        except SyntaxError:
            carved = None  # the C++ front end reports it, with its location
        return file, carved, name
    raise TypeError(f"expected a function or a path to a program, not {type(fn_or_path).__name__}")
