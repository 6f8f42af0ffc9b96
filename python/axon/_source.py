"""Where a kernel's program is: a function's file and name, or a path."""

import inspect
import os

from .errors import Error


def program_of(fn_or_path, entry=None):
    """(file, entry) for a function written in the NumPy subset (its source
    file, its name) or a path to a program (the entry given, else its last
    def). A function's whole file is read, so it must be in the subset."""
    target = getattr(fn_or_path, "__axon_function__", fn_or_path)  # an axon.jit wrapper
    if isinstance(target, (str, os.PathLike)):
        return os.fspath(target), entry
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
        return file, name
    raise TypeError(f"expected a function or a path to a program, not {type(fn_or_path).__name__}")
