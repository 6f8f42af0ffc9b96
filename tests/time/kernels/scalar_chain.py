"""A chain of dependent one-element Scalar-engine activations, for the timing model's check.

The NKI performance guide profiles "many back-to-back ScalarE instructions with small tensor
shapes" at about 189 ns each (research note nki.md 4.2). `chain(x)` runs x.shape[1]
activations, each reading the previous one's [1, 1] result; timing two lengths gives the cost
of one link.
"""
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def chain(x):
    out = nl.ndarray((1, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((1, 1), dtype=x.dtype, buffer=nl.sbuf)
    t[...] = nl.load(x[0:1, 0:1])
    for _ in nl.static_range(x.shape[1]):
        t[...] = nisa.activation(nl.copy, t)
    nl.store(out, value=t)
    return out
