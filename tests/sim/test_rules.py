"""Each rule: one kernel that passes just inside it, one that breaks it (and must name it)."""
import warnings

import numpy as np
import pytest

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from simtest import expect_rule, rand, run


def copy_kernel(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out


# -- R1: compute instructions never read HBM ------------------------------------------------
def test_r1_compute_on_hbm_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.exp(a))
        return out
    error = expect_rule("R1", kernel, rand(128, 4))
    assert error.location[0] == __file__


def test_r1_compute_on_sbuf_passes():
    a = rand(128, 4)
    assert np.array_equal(run(copy_kernel, a), a)


# -- R2: outputs are HBM and fully written ----------------------------------------------------
def test_r2_partly_written_output_fails():
    def kernel(a):
        out = nl.ndarray((256, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out[0:128, :], value=nl.load(a))
        return out
    expect_rule("R2", kernel, rand(128, 4))


def test_r2_returning_sbuf_fails():
    def kernel(a):
        return nl.load(a)
    expect_rule("R2", kernel, rand(128, 4))


# -- R3: load/store/dma endpoints ---------------------------------------------------------------
def test_r3_store_to_sbuf_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nl.store(t, value=nl.load(a))
        return out
    expect_rule("R3", kernel, rand(128, 4))


def test_r3_dma_copy_psum_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        p = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.psum)
        nisa.dma_copy(dst=p, src=a)
        return out
    expect_rule("R3", kernel, rand(128, 4))


def test_r3_dma_copy_hbm_to_hbm_passes():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=a)
        return out
    a = rand(128, 4)
    assert np.array_equal(run(kernel, a), a)


# -- R4: memory spaces per engine -----------------------------------------------------------------
def test_r4_matmul_operand_in_psum_fails():
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        p = nisa.nc_matmul(x, x)
        q = nisa.nc_matmul(p, x)
        nl.store(out, value=nl.copy(q))
        return out
    expect_rule("R4", kernel, rand(128, 128))


def test_r4_matmul_result_into_sbuf_fails():
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        s = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        s[...] = nisa.nc_matmul(x, x)
        nl.store(out, value=s)
        return out
    expect_rule("R4", kernel, rand(128, 128))


def test_r4_gpsimd_reading_psum_fails():
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        p = nisa.nc_matmul(x, x)
        nl.store(out, value=nisa.tensor_copy(p, engine=nisa.gpsimd_engine))
        return out
    expect_rule("R4", kernel, rand(128, 128))


def test_r4_tensor_tensor_both_psum_fails():
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        p = nisa.nc_matmul(x, x)
        q = nisa.nc_matmul(x, x)
        nl.store(out, value=nisa.tensor_tensor(p, q, op=nl.add))
        return out
    expect_rule("R4", kernel, rand(128, 128))


def test_r4_tensor_tensor_one_psum_passes():
    def kernel(a):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nl.load(a)
        p = nisa.nc_matmul(x, x)
        nl.store(out, value=nisa.tensor_tensor(p, x, op=nl.add))
        return out
    a = rand(128, 128)
    np.testing.assert_allclose(run(kernel, a), a.T @ a + a, rtol=1e-4, atol=1e-4)


# -- R5: values computed from never-written memory must not reach HBM -----------------------------
def test_r5_read_uninitialised_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        t[:, 0:2] = nl.load(a[:, 0:2])
        nl.store(out, value=nl.exp(t))
        return out
    error = expect_rule("R5", kernel, rand(128, 4))
    assert "never-written elements of" in error.message


def test_r5_read_after_full_write_passes():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        t[:, 0:2] = nl.load(a[:, 0:2])
        t[:, 2:4] = nl.load(a[:, 2:4])
        nl.store(out, value=nl.exp(t))
        return out
    a = rand(128, 4)
    np.testing.assert_allclose(run(kernel, a), np.exp(a), rtol=1e-6)


def masked_rows_kernel(store_mask):
    """Rows >= M of the tile are never loaded; compute runs over the whole tile unmasked."""
    def kernel(a):
        m, n = a.shape
        out = nl.ndarray((m, n), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.arange(128)[:, None], nl.arange(n)[None, :]
        x = nl.load(a[i_p, i_f], mask=(i_p < m))
        row_sum = nl.sum(x, axis=[1], keepdims=True)
        y = nl.multiply(nl.exp(x), row_sum)
        nl.store(out[i_p, i_f], value=y, mask=(i_p < m) if store_mask else None)
        return out
    return kernel


def test_r5_unwritten_rows_computed_but_not_stored_pass():
    a = rand(100, 8)
    np.testing.assert_allclose(run(masked_rows_kernel(True), a),
                               np.exp(a) * a.sum(axis=1, keepdims=True), rtol=1e-5)


def test_r5_unwritten_rows_reaching_a_store_fail():
    # The store's unmasked index runs past the 100 rows of `out`, so store into a tile that
    # fits instead: the poison must be what fails, not R20.
    def kernel(a):
        out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.arange(128)[:, None], nl.arange(8)[None, :]
        x = nl.load(a[i_p, i_f], mask=(i_p < 100))
        nl.store(out, value=nl.multiply(nl.exp(x), 2.0))
        return out
    error = expect_rule("R5", kernel, rand(100, 8))
    assert "(first at index (100, 0)" in error.message


def test_r5_unwritten_contraction_rows_reach_every_matmul_output():
    # Partitions 64..127 of the stationary tile are never written: every output of the
    # matmul sums over them, so every stored element is undefined.
    def kernel(s, mv):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        st = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        st[0:64, :] = nl.load(s[0:64, :])
        acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(st, nl.load(mv))
        nl.store(out, value=nl.copy(acc))
        return out
    error = expect_rule("R5", kernel, rand(128, 128), rand(128, 128, seed=1))
    assert "(first at index (0, 0)" in error.message


def test_r5_undefined_survives_later_psum_accumulation():
    # The undefined first accumulation is not washed out by a defined second one.
    def kernel(s, mv):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        partial = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        partial[0:64, :] = nl.load(s[0:64, :])
        acc = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(partial, nl.load(mv))
        acc += nisa.nc_matmul(nl.load(s), nl.load(mv))
        nl.store(out, value=nl.copy(acc))
        return out
    expect_rule("R5", kernel, rand(128, 128), rand(128, 128, seed=1))


def test_r5_dma_copy_of_unwritten_sbuf_to_hbm_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=out, src=t)
        return out
    expect_rule("R5", kernel, rand(128, 4))


def test_r5_reduction_over_an_unwritten_column_fails():
    def kernel(a):
        out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.sbuf)
        t[:, 0:3] = nl.load(a[:, 0:3])
        nl.store(out, value=nl.sum(t, axis=[1], keepdims=True))
        return out
    expect_rule("R5", kernel, rand(128, 4))


# -- masks on [P, 1] operands: a masked instruction reads only the partitions it touches ---------
def column_operand_kernel(masked):
    """x * c for a [128, 4] tile and a [64, 1] column read through a 128-partition index:
    partitions 64..127 of the column are out of bounds unless the mask excludes them."""
    def kernel(a, c):
        out = nl.ndarray((64, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f, i_0 = nl.arange(128)[:, None], nl.arange(4)[None, :], nl.arange(1)[None, :]
        valid = (i_p < 64) if masked else None
        x = nl.load(a[i_p, i_f], mask=valid)
        column = nl.load(c)
        y = nl.multiply(x, column[i_p, i_0], mask=valid)
        z = nisa.activation(op=nl.exp, data=x, bias=column[i_p, i_0], scale=1.0, mask=valid)
        nl.store(out[i_p, i_f], value=nl.add(y, z, mask=valid), mask=valid)
        return out
    return kernel


def test_masked_column_operand_reads_only_masked_partitions():
    a, c = rand(64, 4), rand(64, 1, seed=1)
    np.testing.assert_allclose(run(column_operand_kernel(True), a, c), a * c + np.exp(a + c),
                               rtol=1e-5)


def test_unmasked_column_operand_out_of_bounds_fails():
    expect_rule("R20", column_operand_kernel(False), rand(64, 4), rand(64, 1, seed=1))


# -- R6: partitions <= 128 -------------------------------------------------------------------------
def test_r6_load_of_256_partitions_fails():
    expect_rule("R6", copy_kernel, rand(256, 4))


def test_r6_sbuf_allocation_of_129_partitions_fails():
    def kernel(a):
        t = nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.sbuf)
        return a
    expect_rule("R6", kernel, rand(128, 4))


def test_r6_128_partitions_passes():
    a = rand(128, 4)
    assert np.array_equal(run(copy_kernel, a), a)


# -- R7 / R24: PSUM tile <= one bank, <= 8 banks live ------------------------------------------------
def test_r7_psum_tile_over_2kib_fails():
    def kernel(a):
        p = nl.zeros((128, 1024), dtype=nl.float32, buffer=nl.psum)
        return a
    expect_rule("R7", kernel, rand(128, 4))


def test_r7_psum_tile_of_512_fp32_passes():
    def kernel(a):
        p = nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum)
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out
    run(kernel, rand(128, 4))


def psum_banks_kernel(banks):
    def kernel(a):
        tiles = [nl.zeros((128, 512), dtype=nl.float32, buffer=nl.psum) for _ in range(banks)]
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out
    return kernel


def test_r24_nine_psum_banks_fail():
    expect_rule("R24", psum_banks_kernel(9), rand(128, 4))


def test_r24_eight_psum_banks_pass():
    run(psum_banks_kernel(8), rand(128, 4))


# -- R25: SBUF capacity ----------------------------------------------------------------------------
def sbuf_kernel(kib):
    def kernel(a):
        big = nl.ndarray((128, kib * 256), dtype=nl.float32, buffer=nl.sbuf)
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
        return out
    return kernel


def test_r25_sbuf_over_192kib_fails():
    expect_rule("R25", sbuf_kernel(192), rand(128, 4))


def test_r25_sbuf_under_192kib_passes():
    run(sbuf_kernel(180), rand(128, 4))


def test_r25_loop_tiles_die_each_iteration():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(4):
            big = nl.ndarray((128, 100 * 256), dtype=nl.float32, buffer=nl.sbuf)
        nl.store(out, value=nl.load(a))
        return out
    run(kernel, rand(128, 4))


# -- R8: matmul layout -------------------------------------------------------------------------------
def matmul_kernel(k, m, n):
    def kernel(s, mv):
        out = nl.ndarray((m, n), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((m, n), dtype=nl.float32, buffer=nl.psum)
        acc += nisa.nc_matmul(nl.load(s), nl.load(mv))
        nl.store(out, value=nl.copy(acc))
        return out
    return kernel


def test_r8_matmul_limits_pass():
    s, mv = rand(128, 128), rand(128, 512, seed=1)
    np.testing.assert_allclose(run(matmul_kernel(128, 128, 512), s, mv), s.T @ mv,
                               rtol=1e-4, atol=1e-3)


def test_r8_moving_free_over_512_fails():
    def kernel(s, mv):
        out = nl.ndarray((128, 1024), dtype=nl.float32, buffer=nl.shared_hbm)
        x = nisa.nc_matmul(nl.load(s), nl.load(mv))
        return out
    expect_rule("R8", kernel, rand(128, 128), rand(128, 1024))


def test_r8_contraction_mismatch_fails():
    def kernel(s, mv):
        x = nisa.nc_matmul(nl.load(s), nl.load(mv))
        return s
    expect_rule("R8", kernel, rand(64, 128), rand(128, 128))


def test_r8_accumulate_into_wrong_shape_fails():
    def kernel(s, mv):
        acc = nl.zeros((128, 256), dtype=nl.float32, buffer=nl.psum)
        acc[:, 0:128] += nisa.nc_matmul(nl.load(s), nl.load(mv))
        return s
    expect_rule("R8", kernel, rand(128, 128), rand(128, 256))


def test_r8_accumulate_into_sbuf_fails():
    def kernel(s, mv):
        acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        acc += nisa.nc_matmul(nl.load(s), nl.load(mv))
        return s
    expect_rule("R8", kernel, rand(128, 128), rand(128, 128))


# -- R9: nc_transpose sizes ------------------------------------------------------------------------------
def transpose_kernel(p, f, engine):
    def kernel(a):
        out = nl.ndarray((f, p), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.copy(nisa.nc_transpose(nl.load(a), engine=engine)))
        return out
    return kernel


def test_r9_tensor_transpose_128_passes():
    a = rand(128, 128)
    assert np.array_equal(run(transpose_kernel(128, 128, nisa.tensor_engine), a), a.T)


def test_r9_vector_transpose_over_32_fails():
    expect_rule("R9", transpose_kernel(64, 64, nisa.vector_engine), rand(64, 64))


def test_r9_vector_transpose_32_passes():
    a = rand(32, 32)
    assert np.array_equal(run(transpose_kernel(32, 32, nisa.vector_engine), a), a.T)


# -- R10: the partition dimension comes first ------------------------------------------------------------
def test_r10_partition_not_first_fails():
    def kernel(a):
        t = nl.ndarray((2, nl.par_dim(128), 4), dtype=nl.float32, buffer=nl.sbuf)
        t[0] = nl.load(a)
        t[1] = nl.load(a)
        x = nl.exp(t[:, :, :])
        return a
    expect_rule("R10", kernel, rand(128, 4))


def test_r10_block_indexed_tile_passes():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((2, nl.par_dim(128), 4), dtype=nl.float32, buffer=nl.sbuf)
        t[0] = nl.load(a)
        t[1] = nl.exp(t[0])
        nl.store(out, value=t[1])
        return out
    a = rand(128, 4)
    np.testing.assert_allclose(run(kernel, a), np.exp(a), rtol=1e-6)


# -- R11: elementwise operand shapes; activation bias/scale ----------------------------------------------
def test_r11_tensor_tensor_partition_mismatch_fails():
    def kernel(a, b):
        x = nisa.tensor_tensor(nl.load(a), nl.load(b), op=nl.add)
        return a
    expect_rule("R11", kernel, rand(128, 4), rand(64, 8))


def test_r11_activation_float_bias_fails():
    def kernel(a):
        x = nisa.activation(op=nl.exp, data=nl.load(a), bias=1.0)
        return a
    expect_rule("R11", kernel, rand(128, 4))


def test_r11_activation_bias_row_fails():
    def kernel(a, b):
        x = nisa.activation(op=nl.exp, data=nl.load(a), bias=nl.load(b))
        return a
    expect_rule("R11", kernel, rand(128, 4), rand(1, 128))


def test_r11_activation_bias_column_and_scale_pass():
    def kernel(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nisa.activation(op=nl.exp, data=nl.load(a), bias=nl.load(b),
                                            scale=0.5))
        return out
    a, b = rand(128, 4), rand(128, 1, seed=1)
    np.testing.assert_allclose(run(kernel, a, b), np.exp(a * 0.5 + b), rtol=1e-6)


# -- R12: tensor_reduce axes, bn_stats/bn_aggr sizes ---------------------------------------------------
def reduce_kernel(axis):
    def kernel(a):
        out = nl.ndarray((a.shape[0], 1), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(out, value=nisa.tensor_reduce(np.add, x, axis=axis, keepdims=True))
        return out
    return kernel


def test_r12_reduce_partition_axis_fails():
    expect_rule("R12", reduce_kernel(0), rand(128, 4))


def test_r12_reduce_last_axis_passes():
    a = rand(128, 4)
    np.testing.assert_allclose(run(reduce_kernel(1), a), a.sum(axis=1, keepdims=True), rtol=1e-5)


def test_r12_bn_stats_over_512_fails():
    def kernel(a):
        x = nisa.bn_stats(nl.load(a))
        return a
    expect_rule("R12", kernel, rand(128, 1024))


# -- R13: activation reduce is add only ---------------------------------------------------------------
def test_r13_activation_reduce_max_fails():
    def kernel(a):
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        x = nisa.activation(op=nl.exp, data=nl.load(a), reduce_op=nl.maximum, reduce_res=r)
        return a
    expect_rule("R13", kernel, rand(128, 4))


def test_r13_activation_reduce_add_passes():
    def kernel(a):
        out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
        r = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        x = nisa.activation(op=nl.exp, data=nl.load(a), reduce_op=nl.add, reduce_res=r)
        nl.store(out, value=r)
        return out
    a = rand(128, 4)
    np.testing.assert_allclose(run(kernel, a), np.exp(a).sum(axis=1, keepdims=True), rtol=1e-5)


# -- R14: operators per instruction; bitvec needs integers ---------------------------------------------
def test_r14_bitvec_on_float_fails():
    def kernel(a):
        x = nl.load(a)
        y = nisa.tensor_tensor(x, x, op=nl.bitwise_and)
        return a
    expect_rule("R14", kernel, rand(128, 4))


def test_r14_alu_op_as_activation_fails():
    def kernel(a):
        y = nisa.activation(op=nl.add, data=nl.load(a))
        return a
    expect_rule("R14", kernel, rand(128, 4))


def test_r14_bitvec_on_int_passes():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(out, value=nisa.tensor_scalar(x, np.bitwise_and, 6))
        return out
    a = np.arange(128 * 4, dtype=np.int32).reshape(128, 4)
    assert np.array_equal(run(kernel, a), a & 6)


# -- R15: activation input ranges (a warning: the hardware returns invalid results) --------------------
def activation_kernel(function):
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=function(nl.load(a)))
        return out
    return kernel


@pytest.mark.parametrize("function, bad", [(nl.log, -1.0), (nl.sqrt, 0.0), (nl.rsqrt, -4.0),
                                           (nl.reciprocal, 0.0), (nl.log, 2.0 ** 70)])
def test_r15_activation_input_outside_range_warns(function, bad):
    a = np.abs(rand(128, 4)) + 0.5
    a[3, 2] = bad
    with pytest.warns(UserWarning, match=r"R15: .*activation %s: 1 inputs outside"
                      % function.__name__):
        run(activation_kernel(function), a)


def test_r15_activation_input_inside_range_is_silent():
    a = np.abs(rand(128, 4)) + 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for function in (nl.log, nl.sqrt, nl.rsqrt, nl.reciprocal):
            run(activation_kernel(function), a)
        run(activation_kernel(nl.reciprocal), -a)


def test_r15_masked_out_inputs_are_not_checked():
    def kernel(a):
        out = nl.ndarray((64, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.arange(128)[:, None], nl.arange(4)[None, :]
        x = nl.load(a[i_p, i_f])
        nl.store(out[i_p, i_f], value=nl.log(x, mask=(i_p < 64)), mask=(i_p < 64))
        return out
    a = np.abs(rand(128, 4)) + 0.5
    a[100:, :] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(run(kernel, a), np.log(a[:64]), rtol=1e-6)


# -- R16: partition start offsets -------------------------------------------------------------------------
def partition_window_kernel(start, size):
    def kernel(a):
        out = nl.ndarray((size, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(out, value=nl.exp(x[start:start + size, :]))
        return out
    return kernel


def test_r16_unaligned_partition_start_fails():
    expect_rule("R16", partition_window_kernel(16, 32), rand(128, 4))


def test_r16_aligned_partition_start_passes():
    a = rand(128, 4)
    np.testing.assert_allclose(run(partition_window_kernel(64, 64), a), np.exp(a[64:]), rtol=1e-6)


# -- R17 / R18 / R19: indexing styles and masks ---------------------------------------------------------
def strided_kernel(step):
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.load(a)
        nl.store(out, value=nl.copy(x[:, ::step] if step > 0 else x[:, 7::step]))
        return out
    return kernel


def test_r17_positive_slice_step_passes():
    a = rand(128, 8)
    assert np.array_equal(run(strided_kernel(2), a), a[:, ::2])


def test_r17_negative_slice_step_fails():
    expect_rule("R17", strided_kernel(-2), rand(128, 8))


def test_r18_mixed_indexing_fails():
    def kernel(a):
        x = nl.load(a[nl.arange(128)[:, None], 0:4])
        return a
    expect_rule("R18", kernel, rand(128, 4))


def test_r18_advanced_and_basic_indexing_each_pass():
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        i_p, i_f = nl.arange(128)[:, None], nl.arange(2)[None, :]
        nl.store(out[i_p, i_f], value=nl.load(a[i_p, i_f]))
        nl.store(out[:, 2:4], value=nl.load(a[:, nl.ds(2, 2)]))
        return out
    a = rand(128, 4)
    assert np.array_equal(run(kernel, a), a)


def test_r19_mask_must_be_a_comparison():
    def kernel(a):
        x = nl.load(a, mask=True)
        return a
    expect_rule("R19", kernel, rand(128, 4))


def test_r19_mask_of_comparisons_joined_with_and_passes():
    def kernel(a):
        out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        g = nl.mgrid[0:128, 0:8]
        inside = (g.p < 100) & (g.x >= 2)
        x = nl.load(a[g.p, g.x])
        nl.store(out[g.p, g.x], value=nl.zeros((128, 8), dtype=a.dtype))
        nl.store(out[g.p, g.x], value=nl.exp(x, mask=inside), mask=inside)
        return out
    a = rand(128, 8)
    expected = np.zeros_like(a)
    expected[:100, 2:] = np.exp(a[:100, 2:])
    np.testing.assert_allclose(run(kernel, a), expected, rtol=1e-6)


# -- R20: out-of-bounds HBM access; masks make it legal ----------------------------------------------------
def tail_kernel(masked):
    def kernel(a):
        n = a.shape[1]
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range((n + 511) // 512):
            g = nl.mgrid[0:128, 0:512]
            mask = (i * 512 + g.x < n) if masked else None
            x = nl.load(a[g.p, i * 512 + g.x], mask=mask)
            nl.store(out[g.p, i * 512 + g.x], value=nl.exp(x, mask=mask), mask=mask)
        return out
    return kernel


def test_r20_out_of_bounds_fails():
    expect_rule("R20", tail_kernel(False), rand(128, 600))


def test_r20_masked_tail_passes():
    a = rand(128, 600)
    np.testing.assert_allclose(run(tail_kernel(True), a), np.exp(a), rtol=1e-6)


def test_r20_slice_past_end_fails():
    def kernel(a):
        x = nl.load(a[:, 0:8])
        return a
    expect_rule("R20", kernel, rand(128, 4))


# -- R21: no Python control flow on loop indices or tiles ----------------------------------------------
def test_r21_if_on_loop_index_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):
            if i == 0:
                nl.store(out, value=nl.load(a))
        return out
    expect_rule("R21", kernel, rand(128, 4))


def test_r21_if_on_tile_fails():
    def kernel(a):
        x = nl.load(a)
        if x:
            pass
        return a
    expect_rule("R21", kernel, rand(128, 4))


def test_r21_static_range_index_is_an_int():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.static_range(2):
            if i == 0:
                nl.store(out, value=nl.load(a))
        return out
    a = rand(128, 4)
    assert np.array_equal(run(kernel, a), a)


# -- R22: affine_range iterations independent ------------------------------------------------------------
def test_r22_carried_dependence_fails():
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        for i in nl.affine_range(4):
            x = nl.load(a[:, i:i + 1])
            acc[...] = nl.multiply(nl.add(acc, x), 2.0)
            nl.store(out[:, i:i + 1], value=acc)
        return out
    error = expect_rule("R22", kernel, rand(128, 4))
    assert "affine_range" in error.message


def test_r22_sequential_range_allows_dependence():
    def kernel(a):
        out = nl.ndarray((128, 4), dtype=a.dtype, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 1), dtype=nl.float32, buffer=nl.sbuf)
        for i in nl.sequential_range(4):
            x = nl.load(a[:, i:i + 1])
            acc[...] = nl.add(acc, x)
            nl.store(out[:, i:i + 1], value=acc)
        return out
    a = rand(128, 4)
    np.testing.assert_allclose(run(kernel, a), np.cumsum(a, axis=1), rtol=1e-5, atol=1e-6)


def psum_reorder_kernel(carried):
    """Six K tiles accumulated into PSUM inside an affine_range; with `carried`, each
    iteration also adds a tile an earlier iteration wrote (a real dependence)."""
    def kernel(s, mv):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
        carry = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.sbuf)
        for k in nl.affine_range(6):
            x = nl.load(s[k * 128:(k + 1) * 128, :])
            acc += nisa.nc_matmul(x, nl.load(mv[k * 128:(k + 1) * 128, :]))
            if carried:
                carry[...] = nl.add(nl.multiply(carry, 0.5), x)
        nl.store(out, value=nl.add(nl.copy(acc), carry))
        return out
    return kernel


def test_r22_psum_reorder_tolerance_is_relative():
    # Outputs of size ~2e3 reassociated over 6 accumulations move by more than any fixed
    # absolute tolerance near zero; relative to the largest output they are still identical.
    s, mv = rand(768, 128) * 10, rand(768, 128, seed=1) * 10
    np.testing.assert_allclose(run(psum_reorder_kernel(False), s, mv), s.T @ mv,
                               rtol=1e-4, atol=1e-1)


def test_r22_dependence_beside_psum_accumulation_fails():
    expect_rule("R22", psum_reorder_kernel(True), rand(768, 128), rand(768, 128, seed=1))


def test_r22_psum_accumulation_is_not_a_dependence():
    def kernel(s, mv):
        out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
        acc = nl.zeros((128, 128), dtype=nl.float32, buffer=nl.psum)
        for k in nl.affine_range(4):
            acc += nisa.nc_matmul(nl.load(s[k * 128:(k + 1) * 128, :]),
                                  nl.load(mv[k * 128:(k + 1) * 128, :]))
        nl.store(out, value=nl.copy(acc))
        return out
    s, mv = rand(512, 128), rand(512, 128, seed=1)
    np.testing.assert_allclose(run(kernel, s, mv), s.T @ mv, rtol=1e-4, atol=1e-3)


# -- R23: loop-scoped tiles -------------------------------------------------------------------------------
def test_r23_tile_from_earlier_iteration_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        previous = None
        for i in nl.sequential_range(2):
            x = nl.load(a)
            if previous is not None:
                nl.store(out, value=previous)
            previous = x
        return out
    expect_rule("R23", kernel, rand(128, 4))


def test_r23_tile_used_after_loop_fails():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(1):
            x = nl.load(a)
        nl.store(out, value=x)
        return out
    expect_rule("R23", kernel, rand(128, 4))


def test_r23_tile_declared_before_loop_passes():
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        for i in nl.affine_range(1):
            x[...] = nl.load(a)
        nl.store(out, value=x)
        return out
    a = rand(128, 4)
    assert np.array_equal(run(kernel, a), a)


# -- R26: dtypes per instruction -------------------------------------------------------------------------
def test_r26_psum_accumulation_must_be_fp32():
    def kernel(s, mv):
        acc = nl.zeros((128, 128), dtype=nl.bfloat16, buffer=nl.psum)
        acc += nisa.nc_matmul(nl.load(s), nl.load(mv))
        return s
    expect_rule("R26", kernel, rand(128, 128), rand(128, 128))


def test_r26_matmul_integer_operand_fails():
    def kernel(s):
        x = nisa.nc_matmul(nl.load(s), nl.load(s))
        return s
    expect_rule("R26", kernel, np.ones((128, 128), dtype=np.int32))


def test_r26_activation_int_bias_fails():
    def kernel(a, b):
        x = nisa.activation(op=nl.exp, data=nl.load(a), bias=nl.load(b))
        return a
    expect_rule("R26", kernel, rand(128, 4), np.ones((128, 1), dtype=np.int8))


def test_r26_float64_argument_fails():
    expect_rule("R26", copy_kernel, np.ones((128, 4)))


# -- errors point at the kernel line ---------------------------------------------------------------------
def test_error_names_the_kernel_line():
    def kernel(a):
        return nl.load(a[0:256, :])  # the line
    error = expect_rule("R6", kernel, rand(256, 4))
    assert error.location[0] == __file__
    with open(__file__) as source:
        assert "# the line" in source.readlines()[error.location[1] - 1]
