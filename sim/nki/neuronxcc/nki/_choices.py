"""Every decision this simulator makes where the NKI Beta 1 documentation is silent.

One place, so that a reader can see at once what is fact and what is guess. Each entry
says what was chosen and why. Facts taken from the documentation live next to the code
that enforces them (with their rule id); only the guesses are here.
"""

# Engine chosen when the kernel leaves `engine=` at unknown_engine (the compiler
# "selects the best engine"; which one is not documented). Vector is the documented
# default home of tensor_copy / tensor_scalar / memset, so it is the least surprising.
DEFAULT_COPY_ENGINE = "vector"
DEFAULT_TENSOR_SCALAR_ENGINE = "vector"
DEFAULT_MEMSET_ENGINE = "vector"
# nc_transpose with no engine: Vector when the tile fits its 32x32 limit, else Tensor
# (the docstring says the compiler decides "based on the input shape").
VECTOR_TRANSPOSE_MAX = 32

# nl-level calls lower to one nki.isa instruction each (the docs say they lower "to one of"
# the ISA calls without saying which): unary math goes to the Scalar engine's activation
# (including nl.reciprocal and nl.cos, which the Scalar engine's table lacks but costs
# the same there), binary ops to Vector tensor_tensor / tensor_scalar, reductions to Vector
# tensor_reduce, nl.copy to Vector tensor_copy, nl.negative to Vector tensor_scalar(*-1).
NL_UNARY_ENGINE = "scalar"

# nl.broadcast_to of a [1, F] tile to [P, F] moves data across partitions, which neither
# Vector nor Scalar can do; it is recorded as one SBUF-to-SBUF DMA.
BROADCAST_ENGINE = "dma"

# nl.store of a PSUM tile: the docstring says "an extra copy will be performed to move the
# tile to SBUF first"; the copy is recorded as a Vector tensor_copy.
PSUM_STORE_COPY_ENGINE = "vector"

# `psum[...] += nc_matmul(...)` on PSUM elements never written before reads them as 0:
# the hardware's accumulate flag starts a fresh accumulation group on the first matmul,
# and Beta 1 kernels do declare accumulators with nl.ndarray as well as with nl.zeros.
PSUM_ACCUMULATE_UNWRITTEN_AS_ZERO = True

# Masks on nc_matmul ("operand masking"): the mask is applied to each operand it
# broadcasts to (masked-out operand elements count as 0, and are not read) and to the
# result it broadcasts to (masked-out result elements are not written).
MATMUL_MASK_ON_OPERANDS = True

# PSUM banks used by one tensor: its bytes per partition rounded up to whole 2 KiB banks
# (several small accumulators may share a bank; the packing is not documented).
PSUM_BANK_BYTES = 2048
PSUM_BANKS = 8
# SBUF: 192 KiB per partition on trn1 (architecture guide); the real
# tile_size.total_available_sbuf_size is somewhat less and undocumented. Error above it.
SBUF_BYTES_PER_PARTITION = 192 * 1024

# Instruction results that are never assigned stay alive as long as the Python object;
# tensors allocated inside a loop body die at the end of their iteration (NKI's block
# scope, err_local_variable_used_out_of_scope). Capacity is checked when an instruction
# issues and at every explicit allocation, so a result that is immediately assigned into
# a declared tile (`t[...] = nl.exp(x)`) never counts twice.

# Float-to-integer casts at instruction outputs round to nearest even and saturate to the
# integer range (NKI does not document its float->int conversion).
FLOAT_TO_INT_ROUNDS = True

# float8_e4m3 is ml_dtypes.float8_e4m3 (IEEE-style, with inf/NaN, max 240);
# float8_e5m2 is ml_dtypes.float8_e5m2. Trn1's exact fp8 encodings are not documented.
# tfloat32 is stored as float32 rounded to nearest even at 10 mantissa bits.

# Output dtype when two inputs differ and dtype= is not given: the "highest precision"
# of the two (nki-type-promotion): float32 over anything, a float over an integer, the
# wider of two floats, else the first operand's.

# Activation functions are computed exactly in float32 (the hardware's approximations are
# not documented); erf uses a rational approximation accurate to ~1.5e-7.

# R16 (partition start offsets) applies to the on-chip operands of compute-engine
# instructions only; DMA can address any partition range.
CHECK_PARTITION_START = True

# R22: after a run, the kernel is run again with every affine_range reversed; outputs must
# match bit for bit, or, when the kernel accumulated into PSUM inside an affine_range, within
#     |forward - reversed| <= rtol * max|forward output| + REORDER_ATOL    (per output array)
# with rtol = max(REORDER_RTOL, eps of the output dtype). Why relative to the output's
# largest magnitude: reversing T accumulations of fp32 partial sums changes a result by up
# to about T ulps of the largest partial sum, which no absolute tolerance can bound (K = 384
# random products, T = 3, moved an output near 0 by 7.6e-6); each nc_matmul's own sum over
# its partitions is computed identically in both runs, so T is the trip count, not K.
# REORDER_RTOL = 1e-5 is about 160 fp32 ulps, enough for T in the hundreds. The dtype's eps
# covers a final rounding to bf16/fp16/fp8 that flips by one step. A real loop-carried
# dependence changes outputs by far more (tests/sim/test_rules.py, R22). An element much
# smaller than the largest output gets a loose check: the price of not tracking the
# magnitude of every partial sum through the instructions after the accumulation.
REORDER_RTOL = 1e-5
REORDER_ATOL = 1e-6

# SPMD grids (kernel[grid](...)) are not modelled: a jit kernel runs one instance with
# nl.program_id(...) == 0 and nl.num_programs(...) == 1.
