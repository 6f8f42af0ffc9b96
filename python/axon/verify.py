"""axon.verify: are two programs equal for every size and every input?"""

import numpy as np

from . import _axon
from ._source import program_of


class Counterexample:
    """Sizes and inputs on which f and g differ, replayed in the reference
    interpreter (float64): ``f`` and ``g`` are their results at ``index`` of
    result number ``result``. When the results' shapes differ, ``index`` is
    () and both values are NaN (``shapes_differ``)."""

    def __init__(self, raw):
        self.result = raw["result"]
        self.sizes = dict(raw["sizes"])
        self.inputs = {name: np.array(t["data"], dtype=np.float64).reshape(t["shape"])
                       for name, t in raw["inputs"].items()}
        self.index = tuple(raw["index"])
        self.f = raw["f"]
        self.g = raw["g"]
        self.shapes_differ = raw["shapes_differ"]
        # |f - g| / max(|f|, |g|): about 1e-7 or less is rounding, near 1 a real difference.
        self.relative_difference = raw["relative_difference"]

    def __repr__(self):
        if self.shapes_differ:
            return f"<Counterexample sizes={self.sizes}: the results have different shapes>"
        return (f"<Counterexample sizes={self.sizes} at {self.index}: f gives {self.f}, g gives {self.g}, "
                f"relative difference {self.relative_difference:.3g}>")


class Verdict:
    """What the prover decided.

    ``verdict`` is "proved", "refuted" or "unknown" (``proved`` is True only
    for the first); ``counterexample`` is set when refuted; ``obligation`` is
    the prover's account of what it could not prove when unknown;
    ``results`` has one entry per result of the kernels (verdict, method,
    detail, seconds, obligations) and ``smtlib`` every proof obligation as an
    SMT-LIB2 script that z3 alone re-checks (each answers unsat).
    """

    def __init__(self, raw):
        self.verdict = raw["verdict"]
        self.proved = self.verdict == "proved"
        self.results = raw["results"]
        self.smtlib = list(raw["smtlib"])
        self.obligation = raw["unproved"] or None
        c = raw["counterexample"]
        self.counterexample = Counterexample(c) if c is not None else None

    def __repr__(self):
        more = f": {self.counterexample!r}" if self.counterexample else (
            f": {self.obligation}" if self.obligation else "")
        return f"<axon.Verdict {self.verdict}{more}>"


def verify(f, g, *, entry_f=None, entry_g=None, rlimit=None):
    """Decides whether kernels f and g (functions in the NumPy subset or paths
    to programs) compute the same results for every size and input. Their
    parameters must match by position and annotation (else ProgramError)."""
    file_f, text_f, entry_f = program_of(f, entry_f)
    file_g, text_g, entry_g = program_of(g, entry_g)
    return Verdict(_axon.verify(file_f, text_f, entry_f, file_g, text_g, entry_g, rlimit))
