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
    t3 = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    t2 = nisa.activation_reduce(op=nl.exp, data=t0, scale=1.0, bias=nisa.tensor_scalar(data=t1, op0=nl.multiply, operand0=-1.0, engine=nisa.vector_engine), reduce_op=nl.add, reduce_res=t3)
    jf = nl.arange(65)[None, :]
    t4 = nisa.tensor_scalar(data=t2, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t3), engine=nisa.vector_engine)
    nl.store(out0[ip, jf], value=t4)
    del t0, t1, t2, t3, t4  # the block's tiles end here
    # the last partition tile: 2 of 128
    ip = nl.arange(2)[:, None]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    jf = nl.arange(65)[None, :]
    t5 = nl.load(x[128 + ip, jf])
    t6 = nisa.tensor_reduce(op=nl.maximum, data=t5, axis=(1,), keepdims=True)
    jf = nl.arange(65)[None, :]
    t8 = nl.ndarray((2, 1), dtype=nl.float32, buffer=nl.sbuf)
    t7 = nisa.activation_reduce(op=nl.exp, data=t5, scale=1.0, bias=nisa.tensor_scalar(data=t6, op0=nl.multiply, operand0=-1.0, engine=nisa.vector_engine), reduce_op=nl.add, reduce_res=t8)
    jf = nl.arange(65)[None, :]
    t9 = nisa.tensor_scalar(data=t7, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t8), engine=nisa.vector_engine)
    nl.store(out0[128 + ip, jf], value=t9)
    del t5, t6, t7, t8, t9  # the block's tiles end here
    return out0
