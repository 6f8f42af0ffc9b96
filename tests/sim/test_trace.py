"""The trace's operand identities (buf, part, bytes, contig, queue) and dry runs."""
import time

import numpy as np
import pytest

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki import NkiSimError, _run

from simtest import rand


@nki.jit
def scaled_rows(a):
    out = nl.ndarray((a.shape[0], 256), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[i * 128:(i + 1) * 128, 0:256])
        y = nl.multiply(x, 2.0)
        nl.store(out[i * 128:(i + 1) * 128, 0:256], value=y)
    return out


@nki.jit
def strided_column(a):
    out = nl.ndarray((64, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((nl.par_dim(64), 4, 8), dtype=a.dtype, buffer=nl.sbuf)
    t[:, 2, 0:8] = nl.load(a[32:96, 0:8])
    nl.store(out, value=nl.copy(t[:, 2, 3:4]))
    return out


@nki.jit
def out_of_bounds(a):
    out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:128, 0:8]
    x = nl.load(a[i_p + 1, i_f])
    nl.store(out, value=x)
    return out


@nki.jit
def tiled_matmul(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    out = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 512):
            acc = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                s = nl.load(lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                v = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
                acc += nisa.nc_matmul(s, v)
            nl.store(out[m * 128:(m + 1) * 128, n * 512:(n + 1) * 512],
                     value=nl.copy(acc, dtype=out.dtype))
    return out


def records(kernel, *arrays, dry=False):
    _run.run(kernel.func, arrays, {}, reorder_check=False, dry=dry)
    return _run.last.sim.records


def test_operands_name_their_allocation_and_region():
    trace = records(scaled_rows, rand(256, 512))
    loads = [r for r in trace if r["op"] == "load"]
    stores = [r for r in trace if r["op"] == "store"]
    assert len(loads) == 2 and len(stores) == 2
    source = loads[1]["in"][0]
    assert source["mem"] == "shared_hbm"
    assert source["part"] == [128, 256] and source["bytes"] == [0, 1024]
    assert source["contig"] == 1024
    tile = loads[1]["out"]
    assert tile["part"] == [0, 128] and tile["bytes"] == [0, 1024] and tile["mem"] == "sbuf"
    # The loop body's tile is a fresh allocation each iteration; the HBM tensor is one.
    assert loads[0]["out"]["buf"] != loads[1]["out"]["buf"]
    assert loads[0]["in"][0]["buf"] == loads[1]["in"][0]["buf"]
    assert stores[0]["out"]["buf"] == stores[1]["out"]["buf"] != source["buf"]
    assert all(r["queue"] == r["engine"] for r in trace)


def test_block_dimensions_and_strided_views():
    trace = records(strided_column, rand(128, 8))
    load = next(r for r in trace if r["op"] == "load")
    # (par_dim(64), 4, 8) f32: block 2 of a partition starts at byte 2 * 8 * 4.
    assert load["out"]["part"] == [0, 64] and load["out"]["bytes"] == [64, 96]
    assert load["in"][0]["part"] == [32, 96] and load["in"][0]["bytes"] == [0, 32]
    copy = next(r for r in trace if r["op"] == "tensor_copy")
    assert copy["in"][0]["bytes"] == [76, 80] and copy["in"][0]["contig"] == 4


def test_dry_run_records_the_same_instructions():
    a, b = rand(256, 256), rand(256, 1024)
    a, b = a.astype(nl.bfloat16), b.astype(nl.bfloat16)
    wet = records(tiled_matmul, a, b)
    dry = records(tiled_matmul, a, b, dry=True)
    strip = [{k: v for k, v in r.items() if k != "loc"} for r in wet]
    assert strip == [{k: v for k, v in r.items() if k != "loc"} for r in dry]


def test_dry_run_still_checks_the_rules():
    with pytest.raises(NkiSimError) as caught:
        records(out_of_bounds, rand(128, 8), dry=True)
    assert caught.value.rule == "R20"


def test_dry_run_is_fast_at_bench_sizes():
    # 2048 x 2048 @ 2048 x 4096 bf16: 2048 matmuls and 4096 loads.
    a = np.zeros((2048, 2048), dtype=nl.bfloat16)
    b = np.zeros((2048, 4096), dtype=nl.bfloat16)
    start = time.perf_counter()
    trace = records(tiled_matmul, a, b, dry=True)
    elapsed = time.perf_counter() - start
    assert sum(r["op"] == "nc_matmul" for r in trace) == 2048
    assert elapsed < 30, "dry run took %.1f s" % elapsed


def test_dry_flag_on_the_package(monkeypatch):
    monkeypatch.setattr(nki, "dry_run", True)
    out = nki.simulate_kernel(scaled_rows, rand(128, 256))
    assert out.shape == (128, 256)
    assert _run.last.sim.dry


@nki.jit
def through_a_reshape(a):
    out = nl.ndarray((4, 256), dtype=a.dtype, buffer=nl.shared_hbm)
    flat = out.reshape((1, 1024))
    nl.store(flat[0:1, 512:1024], value=nl.load(a.reshape((1, 1024))[0:1, 512:1024]))
    nl.store(out[0:2, :], value=nl.load(a[0:2, :]))
    return out


def test_views_of_a_reshape_are_boxes_of_the_allocation():
    trace = records(through_a_reshape, rand(4, 256))
    stores = [r["out"] for r in trace if r["op"] == "store"]
    # out[2:4, :] through its (1, 1024) view: rows 2 and 3 of out's own shape, whole rows.
    assert stores[0]["part"] == [2, 4] and stores[0]["bytes"] == [0, 1024]
    assert stores[1]["part"] == [0, 2] and stores[1]["bytes"] == [0, 1024]
    assert stores[0]["buf"] == stores[1]["buf"]
