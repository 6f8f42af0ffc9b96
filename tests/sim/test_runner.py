"""sim/nki/axon_nki_run.py, run as Axon's C++ side runs it: a subprocess, files in and out."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import ml_dtypes

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sim", "nki",
                      "axon_nki_run.py")

KERNELS = textwrap.dedent('''
    import numpy as np
    import neuronxcc.nki as nki
    import neuronxcc.nki.language as nl
    import neuronxcc.nki.isa as nisa

    @nki.jit
    def scale_add(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            x = nl.load(a[i * 128:(i + 1) * 128, :])
            y = nl.load(b[i * 128:(i + 1) * 128, :])
            nl.store(out[i * 128:(i + 1) * 128, :], value=x * 2.0 + y)
        return out

    @nki.jit
    def two_outputs(a):
        first = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        second = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(first, value=nl.exp(x))
        nl.store(second, value=nl.negative(x))
        return first, second

    @nki.jit
    def too_many_partitions(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)  # 256 partitions
        nl.store(out, value=x)
        return out

    @nki.jit
    def raises(a):
        return 1 / 0

    @nki.jit
    def carried(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.zeros((a.shape[0], 1), dtype=nl.float32)
        for i in nl.affine_range(a.shape[1]):
            acc[...] = nl.add(acc, nl.load(a[:, i:i + 1]))
            nl.store(out[:, i:i + 1], value=acc)
        return out
''')


def line_of(text):
    return [line.strip() for line in KERNELS.splitlines()].index(text.strip()) + 1


def call(tmp_path, entry, inputs, outputs, *extra):
    kernel = tmp_path / "kernel.py"
    kernel.write_text(KERNELS)
    paths = []
    for index, array in enumerate(inputs):
        path = tmp_path / ("in%d.npy" % index)
        np.save(path, array)
        paths.append(str(path))
    out_paths = [str(tmp_path / ("out%d.npy" % i)) for i in range(outputs)]
    command = [sys.executable, RUNNER, "--kernel", str(kernel), "--entry", entry,
               "--inputs", ",".join(paths), "--outputs", ",".join(out_paths)] + list(extra)
    done = subprocess.run(command, capture_output=True, text=True)
    return done, [np.load(p) for p in out_paths if os.path.exists(p)], str(kernel)


def test_success_writes_outputs_trace_and_stats(tmp_path):
    a = np.random.rand(256, 64)
    b = np.random.rand(256, 64).astype(np.float32)
    trace, stats = tmp_path / "t.jsonl", tmp_path / "s.json"
    done, outs, _ = call(tmp_path, "scale_add", [a, b], 1, "--trace", str(trace),
                         "--stats", str(stats))
    assert done.returncode == 0, done.stderr
    assert outs[0].dtype == np.float32
    np.testing.assert_allclose(outs[0], a.astype(np.float32) * 2 + b, rtol=1e-6)
    summary = json.loads(stats.read_text())
    assert summary["instructions"]["dma"] == 6
    assert set(summary["instructions"]) == {"tensor", "vector", "scalar", "gpsimd", "dma"}
    assert summary["hbm_read_bytes"] == 2 * 256 * 64 * 4
    assert summary["hbm_write_bytes"] == 256 * 64 * 4
    assert summary["sbuf_peak_bytes_per_partition"] > 0 and summary["psum_peak_banks"] == 0
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert records[0]["op"] == "load" and records[0]["engine"] == "dma"
    assert records[0]["loc"].endswith(":%d" % line_of("        x = nl.load(a[i * 128:(i + 1) * 128, :])"))


def test_bf16_inputs_and_two_outputs(tmp_path):
    a = np.random.rand(128, 8).astype(np.float32)
    done, outs, _ = call(tmp_path, "two_outputs", [a], 2, "--dtypes", "bf16")
    assert done.returncode == 0, done.stderr
    rounded = a.astype(ml_dtypes.bfloat16).astype(np.float32)
    # nl.exp's output keeps its input's dtype (bf16) before the store widens it.
    expected = np.exp(rounded).astype(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(outs[0], expected)
    assert np.array_equal(outs[1], -rounded)


def test_rule_violation_exits_1_with_location(tmp_path):
    done, _, kernel = call(tmp_path, "too_many_partitions", [np.zeros((256, 4))], 1)
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert first.startswith("%s:%d: error: [R6] " % (kernel, line_of("x = nl.load(a)  # 256 partitions")))


def test_kernel_exception_exits_1_as_kernel_rule(tmp_path):
    done, _, kernel = call(tmp_path, "raises", [np.zeros((4, 4))], 1)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith(
        "%s:%d: error: [kernel] ZeroDivisionError" % (kernel, line_of("        return 1 / 0")))


def test_reorder_check_and_its_switch(tmp_path):
    a = np.random.rand(128, 4)
    done, _, kernel = call(tmp_path, "carried", [a], 1)
    assert done.returncode == 1
    loop_line = line_of("        for i in nl.affine_range(a.shape[1]):")
    assert done.stderr.splitlines()[0].startswith("%s:%d: error: [R22] " % (kernel, loop_line))
    done, outs, _ = call(tmp_path, "carried", [a], 1, "--no-reorder-check")
    assert done.returncode == 0, done.stderr
    np.testing.assert_allclose(outs[0], np.cumsum(a.astype(np.float32), axis=1), rtol=1e-5)


def test_dry_run_takes_shapes_and_writes_the_trace(tmp_path):
    kernel = tmp_path / "kernel.py"
    kernel.write_text(KERNELS)
    trace = tmp_path / "trace.jsonl"
    command = [sys.executable, RUNNER, "--kernel", str(kernel), "--entry", "scale_add", "--dry",
               "--inputs", "256x512,256x512", "--dtypes", "bf16,bf16",
               "--outputs", str(tmp_path / "out.npy"), "--trace", str(trace)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [r["op"] for r in records].count("load") == 4
    assert all("buf" in operand for r in records for operand in r["in"])
    bad = subprocess.run(command[:-2] + ["--inputs", "256xq,256x512"], capture_output=True, text=True)
    assert bad.returncode == 1 and "neither a .npy file nor a shape" in bad.stderr
