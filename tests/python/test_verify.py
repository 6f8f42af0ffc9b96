"""axon.verify: proved, refuted with a counterexample, unknown with the
obligation not proved."""

import numpy as np
import pytest

import axon
from conftest import function, program


def test_proved():
    v = axon.verify(function("scale"), program("scale_swapped"))
    assert v.verdict == "proved" and v.proved
    assert v.counterexample is None and v.obligation is None
    assert v.smtlib and all("(check-sat)" in s for s in v.smtlib)


def test_refuted_with_a_counterexample():
    scale, wrong = function("scale"), function("scale_wrong")
    v = axon.verify(scale, wrong)
    assert v.verdict == "refuted" and not v.proved
    c = v.counterexample
    assert set(c.sizes) == {"M", "N"} and all(isinstance(n, int) and n >= 1 for n in c.sizes.values())
    assert set(c.inputs) == {"x", "g"}
    assert c.inputs["x"].shape == (c.sizes["M"], c.sizes["N"]) and c.inputs["g"].shape == (c.sizes["N"],)
    assert not c.shapes_differ and len(c.index) == 2
    # The values are the two programs' results at the index, as NumPy computes them.
    assert c.f == pytest.approx(scale(**c.inputs)[c.index])
    assert c.g == pytest.approx(wrong(**c.inputs)[c.index])
    assert c.f != c.g
    # |f - g| / max(|f|, |g|), so that a real bug reads apart from rounding.
    assert c.relative_difference == pytest.approx(abs(c.f - c.g) / max(abs(c.f), abs(c.g)))
    assert "relative difference" in repr(c)


def test_unknown_reports_the_obligation():
    v = axon.verify(program("halves"), program("total"))
    assert v.verdict == "unknown" and not v.proved and v.counterexample is None
    assert isinstance(v.obligation, str) and "unproved obligation" in v.obligation
    assert "sum" in v.obligation


def test_sqrt_of_square_is_abs():
    # sqrt(x * x) >= 0 and its square is x * x: a ground instance of sqrt_square.
    assert axon.verify(program("sqrt_square"), program("absolute")).proved


def test_signatures_must_match():
    with pytest.raises(axon.ProgramError, match="parameter 1 'x' is f32\\[M, N\\] here") as e:
        axon.verify(program("add"), program("scale"))
    assert e.value.file.endswith("scale.py") and e.value.line > 0


def test_entries_for_paths():
    v = axon.verify(program("scale"), program("scale_swapped"), entry_f="scale", entry_g="scale_swapped")
    assert v.proved
    with pytest.raises(axon.ProgramError):
        axon.verify(program("scale"), program("scale"), entry_f="nope")
