# softmax: NKI kernel for trn1 (NeuronCore-v2, NKI Beta 1), emitted by Axon.
# Every instruction is a proved lowering from trn1.json; partial tiles are peeled, not masked.
import numpy as np
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def softmax(x):
    out0 = nl.ndarray((130, 65), dtype=nl.float32, buffer=nl.shared_hbm)
    # stages 0-3 as one row group, intermediates in SBUF
    ip = nl.arange(128)[:, None]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    jf = nl.arange(65)[None, :]
    t0 = nl.load(x[ip, jf])
    t1 = nisa.tensor_reduce(op=nl.maximum, data=t0, axis=(1,), keepdims=True)
    jf = nl.arange(65)[None, :]
    t2 = nisa.tensor_scalar(data=t0, op0=nl.subtract, operand0=t1, engine=nisa.vector_engine)
    t3 = nisa.activation(op=nl.exp, data=t2)
    jf = nl.arange(65)[None, :]
    t4 = nisa.tensor_reduce(op=nl.add, data=t3, axis=(1,), keepdims=True)
    jf = nl.arange(65)[None, :]
    t5 = nisa.tensor_scalar(data=t3, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t4), engine=nisa.vector_engine)
    nl.store(out0[ip, jf], value=t5)
    del t0, t1, t2, t3, t4, t5  # the block's tiles end here
    # the last partition tile: 2 of 128
    ip = nl.arange(2)[:, None]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    jf = nl.arange(65)[None, :]
    t6 = nl.load(x[128 + ip, jf])
    t7 = nisa.tensor_reduce(op=nl.maximum, data=t6, axis=(1,), keepdims=True)
    jf = nl.arange(65)[None, :]
    t8 = nisa.tensor_scalar(data=t6, op0=nl.subtract, operand0=t7, engine=nisa.vector_engine)
    t9 = nisa.activation(op=nl.exp, data=t8)
    jf = nl.arange(65)[None, :]
    t10 = nisa.tensor_reduce(op=nl.add, data=t9, axis=(1,), keepdims=True)
    jf = nl.arange(65)[None, :]
    t11 = nisa.tensor_scalar(data=t9, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t10), engine=nisa.vector_engine)
    nl.store(out0[128 + ip, jf], value=t11)
    del t6, t7, t8, t9, t10, t11  # the block's tiles end here
    return out0
