"""SiLU: the smallest useful Axon program.

A program is plain NumPy. The kernel is the last `def`; each parameter's string
annotation gives its element type and shape. "f32[M, N]" means a 2-D float32
tensor whose sizes are the symbols M and N: Axon reasons about every M and N at
once, and only picks concrete values (below, in SIZES) to test and to tune.

Try:
    axon check examples/silu.py
    axon run   examples/silu.py --dims M=5,N=7 --in x=x.npy --out y.npy

The same file also runs under NumPy itself, which is how its meaning is checked.
"""
import numpy as np

# Sizes used by the tests (small, odd on purpose) and by the benchmarks.
SIZES = {
    "test": {"M": 5, "N": 7},
    "bench": {"M": 4096, "N": 4096},
}


def silu(x: "f32[M, N]") -> "f32[M, N]":
    # x * sigmoid(x), written as one division: x / (1 + e^-x).
    return x / (1.0 + np.exp(-x))
