"""A kernel's facts, and its output folder saved and loaded again."""

import json
import os
import time

import numpy as np
import pytest

import axon
from conftest import SEARCH, function, program

scale = function("scale")


def test_facts(scale_kernel):
    assert scale_kernel.name == "scale"
    assert [p["name"] for p in scale_kernel.inputs] == ["x", "g"]
    assert [tuple(p["shape"]) for p in scale_kernel.inputs] == [(5, 7), (7,)]
    assert scale_kernel.report["kernel"] == "scale"
    assert scale_kernel.report["sizes"] == "M=5,N=7"
    assert scale_kernel.seconds > 0
    assert "axon_kernel_packed" in scale_kernel.source
    proofs = scale_kernel.proofs
    assert proofs, "the report lists the lowerings it proved"
    assert all(p["verdict"] == "proved" for p in proofs), proofs


def test_speedup_is_a_measured_ratio(scale_kernel):
    s = scale_kernel.speedup
    assert isinstance(s, float) and np.isfinite(s) and s > 0


def test_save_and_load(scale_kernel, tmp_path):
    out = tmp_path / "saved"
    scale_kernel.save(out)
    assert {"kernel.so", "kernel.json", "kernel.cpp", "kernel.h", "report.md", "report.html",
            "search.json"} <= set(os.listdir(out))
    written = {os.path.relpath(os.path.join(top, n), out) for top, _, names in os.walk(out) for n in names}
    assert written == set(scale_kernel._files)
    again = axon.load(out)
    x = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    g = np.random.default_rng(2).standard_normal(7).astype(np.float32)
    np.testing.assert_array_equal(again(x, g), scale_kernel(x, g))
    assert again.source == scale_kernel.source and again.report == scale_kernel.report
    scale_kernel.save(out)  # a folder that a save wrote is replaced whole
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]


def test_save_refuses_a_folder_of_other_files(scale_kernel, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(axon.Error, match="other files"):
        scale_kernel.save(tmp_path)
    assert os.listdir(tmp_path) == ["notes.txt"]


def test_load_checks_the_description(scale_kernel, tmp_path):
    out = tmp_path / "k"
    scale_kernel.save(out)
    info = json.loads((out / "kernel.json").read_text())
    info["inputs"][0]["shape"] = [6, 7]
    (out / "kernel.json").write_text(json.dumps(info))
    with pytest.raises(axon.LoadError, match="kernel.json does not describe .*kernel.so: 'inputs'"):
        axon.load(out)
    with pytest.raises(axon.LoadError, match="not a folder written by axon optimize"):
        axon.load(tmp_path / "missing")
    (out / "kernel.json").write_text("{not json")
    with pytest.raises(axon.LoadError, match="not a valid kernel description"):
        axon.load(out)


def test_load_is_not_fooled_by_a_rewritten_folder(tmp_path):
    # Two kernels saved to the same folder in turn: each loaded kernel keeps
    # running its own library (the loader would otherwise reuse the first).
    one = axon.optimize(program("scale"), "test", **SEARCH)
    two = axon.optimize(program("scale_wrong"), {"M": 5, "N": 7}, **SEARCH)
    out = tmp_path / "k"
    one.save(out)
    first = axon.load(out)
    two.save(out)
    second = axon.load(out)
    x, g = np.ones((5, 7), np.float32), np.ones(7, np.float32)
    np.testing.assert_allclose(first(x, g), 2.0)
    np.testing.assert_allclose(second(x, g), 3.0)


def test_cache_answers_a_repeated_request():
    start = time.perf_counter()
    axon.optimize(program("scale"), {"M": 4, "N": 9}, **SEARCH)
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = axon.optimize(program("scale"), {"M": 4, "N": 9}, **SEARCH)
    assert again.from_cache
    assert time.perf_counter() - start < first / 2
    fresh = axon.optimize(program("scale"), {"M": 4, "N": 9}, cache=False, **SEARCH)
    assert not fresh.from_cache


def test_speedup_measured_in_python_when_the_search_did_not():
    # Without the cache, which would answer with an earlier search that timed NumPy.
    k = axon.optimize(function("scale"), {"M": 5, "N": 7}, time_numpy=False, cache=False, **SEARCH)
    assert "not_measured" in k.report["numpy"]
    assert np.isfinite(k.speedup) and k.speedup > 0
    from_path = axon.optimize(program("scale"), {"M": 5, "N": 7}, time_numpy=False, cache=False, **SEARCH)
    assert np.isfinite(from_path.speedup) and from_path.speedup > 0  # the program named by report.md


def test_target_as_a_description_file():
    k = axon.optimize(program("scale"), "test", target=os.path.join(axon.HW_DIR, "x86-avx2.json"), **SEARCH)
    assert k.report["target"] == "x86-avx2"
    x, g = np.ones((5, 7), np.float32), np.full(7, 2, np.float32)
    np.testing.assert_allclose(k(x, g), 3.0)
    with pytest.raises(axon.ProgramError, match="unknown target"):
        axon.optimize(program("scale"), "test", target="no-such-target", **SEARCH)
