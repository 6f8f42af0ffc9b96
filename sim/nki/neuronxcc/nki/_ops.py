"""The operator table: activation functions (Scalar engine `op=`) and ALU operators.

Kernels name an operator with an nl function (`nl.exp`, `nl.add`) or a NumPy ufunc
(`np.add`, `np.max`); both map to one entry here. Each entry says its kind, which decides
where it is legal (R14): activation functions only in activation; arithmetic, comparison
and logical ALU ops on any data in float32; bitvec ops only on integer data.
"""
import math

import numpy as np

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _erf(x):
    # Abramowitz & Stegun 7.1.26 refined to |error| < 1.5e-7, enough for float32 output.
    sign = np.sign(x)
    a = np.abs(x).astype(np.float64)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                          + t * 1.061405429))))
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def _sigmoid(x):
    # 1 / (1 + exp(-x)) in float64, written so that neither tail cancels (the tanh form
    # 0.5 * (1 + tanh(x / 2)) loses all relative precision for x below about -8); the
    # hardware's approximation error is not documented, so the simulator is exact here.
    z = np.exp(-np.abs(np.asarray(x, dtype=np.float64)))
    return np.where(np.asarray(x) >= 0, 1.0 / (1.0 + z), z / (1.0 + z)).astype(np.float32)


def _softplus(x):
    return np.logaddexp(np.float32(0), x)


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / np.float32(math.sqrt(2.0))))


def _gelu_dx(x):
    cdf = 0.5 * (1.0 + _erf(x / np.float32(math.sqrt(2.0))))
    return cdf + x * np.exp(-0.5 * x * x) / np.float32(math.sqrt(2.0 * math.pi))


def _silu_dx(x):
    s = _sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


ACTIVATIONS = {
    "copy": lambda x: x,
    "square": np.square,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "reciprocal": lambda x: 1.0 / x,
    "sigmoid": _sigmoid,
    "silu": lambda x: x * _sigmoid(x),
    "silu_dx": _silu_dx,
    "relu": lambda x: np.maximum(x, 0),
    "gelu": _gelu,
    "gelu_dx": _gelu_dx,
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1.0 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3))),
    "gelu_apprx_sigmoid": lambda x: x * _sigmoid(1.702 * x),
    "tanh": np.tanh,
    "softplus": _softplus,
    "mish": lambda x: x * np.tanh(_softplus(x)),
    "erf": _erf,
    "erf_dx": lambda x: np.float32(2.0 / math.sqrt(math.pi)) * np.exp(-x * x),
    "sin": np.sin,
    "arctan": np.arctan,
    "sign": np.sign,
    "abs": np.abs,
}
# R15: documented input ranges of Scalar-engine activation functions (aws-neuron-sdk
# general/nki/api/nki.api.shared.rst at cca37847, as summarised in research note nki.md §2.3):
# (low, high, symmetric); symmetric ranges bound |x|. Outside them the result is invalid.
INPUT_RANGES = {
    "log": (2.0 ** -64, 2.0 ** 64, False),
    "sin": (-math.pi, math.pi, False),
    "sqrt": (2.0 ** -116, 2.0 ** 118, False),
    "rsqrt": (2.0 ** -87, 2.0 ** 97, False),
    "reciprocal": (2.0 ** -42, 2.0 ** 42, True),
}
# nl functions that exist but are not Scalar-engine activation functions on NeuronCore-v2;
# the nl call computes them (see _choices.NL_UNARY_ENGINE), `op=` rejects them.
NL_ONLY_UNARY = {"cos": np.cos, "negative": np.negative, "tan": np.tan,
                 "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}

ARITH = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": np.power, "mod": np.mod,
    "abs_max": lambda a, b: np.maximum(np.abs(a), np.abs(b)),
}
COMPARE = {
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "less": np.less, "less_equal": np.less_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}
BITVEC = {
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift,
}
# Reductions: (NumPy reduction over axes, identity).
REDUCE = {"add": np.sum, "maximum": np.max, "minimum": np.min, "multiply": np.prod,
          "bitwise_and": np.bitwise_and.reduce, "bitwise_or": np.bitwise_or.reduce}

_NAMES = {}


def register(obj, name):
    _NAMES[id(obj)] = (obj, name)


for _ufunc_name in ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power",
                    "mod", "exp", "log", "sqrt", "tanh", "sin", "cos", "tan", "arctan", "sign",
                    "square", "negative", "reciprocal", "equal", "not_equal", "greater",
                    "greater_equal", "less", "less_equal", "logical_and", "logical_or",
                    "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                    "right_shift", "floor", "ceil", "trunc"]:
    register(getattr(np, _ufunc_name), _ufunc_name)
for _obj, _name in [(np.true_divide, "divide"), (np.abs, "abs"), (np.absolute, "abs"),
                    (np.max, "maximum"), (np.amax, "maximum"), (np.min, "minimum"),
                    (np.amin, "minimum"), (np.sum, "add"), (np.prod, "multiply")]:
    register(_obj, _name)


def name_of(op):
    """The table name of an operator object, or None."""
    entry = _NAMES.get(id(op))
    return entry[1] if entry is not None and entry[0] is op else None


def kind(name):
    if name in ARITH:
        return "arith"
    if name in COMPARE:
        return "compare"
    if name in BITVEC:
        return "bitvec"
    if name in ACTIVATIONS:
        return "activation"
    return None


def alu(name):
    return ARITH.get(name) or COMPARE.get(name) or BITVEC.get(name)
