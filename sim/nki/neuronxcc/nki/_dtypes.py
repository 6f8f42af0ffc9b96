"""NKI dtypes as real NumPy dtypes (bf16/fp8 from ml_dtypes) and the casts at instruction outputs.

Compute engines do their math in float32; an instruction's output is cast to its
destination dtype (rounding to nearest even, as ml_dtypes does).
"""
import numpy as np
import ml_dtypes

bfloat16 = np.dtype(ml_dtypes.bfloat16)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3)
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
float16 = np.dtype(np.float16)
float32 = np.dtype(np.float32)
# The Beta 1 stubs spell tfloat32 as a 4-byte void dtype; storage is float32.
tfloat32 = np.dtype("V4")
int8, int16, int32 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32)
uint8, uint16, uint32 = np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32)
bool_ = np.dtype(np.bool_)

FLOATS = (float32, tfloat32, bfloat16, float16, float8_e4m3, float8_e5m2)
INTS = (int8, int16, int32, uint8, uint16, uint32, bool_)
MATMUL_OPERAND_DTYPES = (float8_e4m3, float8_e5m2, bfloat16, float16, tfloat32, float32)
_PRECISION = {float32: 6, tfloat32: 5, float16: 4, bfloat16: 4, float8_e4m3: 2, float8_e5m2: 2}


def normalize(dtype):
    """np.dtype of an NKI dtype spelling, or None for anything that is not one."""
    if dtype is None:
        return None
    if dtype is float:
        return float32
    if dtype is bool:
        return bool_
    try:
        d = np.dtype(dtype)
    except TypeError:
        return None
    if d in FLOATS or d in INTS:
        return d
    return None


def storage(dtype):
    return float32 if dtype == tfloat32 else dtype


def is_float(dtype):
    return dtype in FLOATS


def is_int(dtype):
    return dtype in INTS


def name(dtype):
    return "tfloat32" if dtype == tfloat32 else dtype.name


def promote(a, b):
    if a == b:
        return a
    if is_float(a) != is_float(b):
        return a if is_float(a) else b
    if is_float(a):
        return a if _PRECISION[a] >= _PRECISION[b] else b
    return a if a.itemsize >= b.itemsize else b


def _round_tf32(values):
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    finite = (bits & 0x7F800000) != 0x7F800000
    rounded = (bits + 0xFFF + ((bits >> 13) & 1)) & np.uint32(0xFFFFE000)
    return np.where(finite, rounded, bits).astype(np.uint32).view(np.float32)


def cast(values, dtype):
    """values (any numeric array) as the storage array of `dtype`."""
    values = np.asarray(values)
    if dtype == tfloat32:
        return _round_tf32(values.astype(np.float32))
    if dtype == bool_:
        return values != 0
    if is_int(dtype) and not np.issubdtype(values.dtype, np.integer):
        info = np.iinfo(dtype)
        clean = np.nan_to_num(values.astype(np.float64), nan=0.0)
        return np.clip(np.rint(clean), info.min, info.max).astype(dtype)
    if is_float(dtype) and values.dtype != dtype and values.dtype not in (float32, np.float64):
        values = values.astype(np.float32)
    return values.astype(dtype)


def to_f32(values):
    return np.asarray(values).astype(np.float32)
