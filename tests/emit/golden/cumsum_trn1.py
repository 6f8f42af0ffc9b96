# cumsum: NKI kernel for trn1 (NeuronCore-v2, NKI Beta 1), emitted by Axon.
# Every instruction is a proved lowering from trn1.json; partial tiles are peeled, not masked.
import numpy as np
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def cumsum(x):
    out0 = nl.ndarray((33, 65), dtype=nl.float32, buffer=nl.shared_hbm)
    # stage 0: cumsum
    ip = nl.arange(33)[:, None]
    jf = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    t0 = nl.load(x[ip, jf])
    t1 = nisa.tensor_tensor_scan(data0=nl.ones((33, 65), dtype=nl.float32), data1=t0, initial=0.0, op0=nl.multiply, op1=nl.add)
    nl.store(out0[ip, jf], value=t1)
    del t0, t1  # the block's tiles end here
    return out0
