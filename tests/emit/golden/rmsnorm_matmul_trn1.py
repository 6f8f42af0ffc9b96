# rmsnorm_matmul: NKI kernel for trn1 (NeuronCore-v2, NKI Beta 1), emitted by Axon.
# Every instruction is a proved lowering from trn1.json; partial tiles are peeled, not masked.
import numpy as np
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def rmsnorm_matmul(x, w, g):
    out0 = nl.ndarray((5, 65), dtype=nl.float32, buffer=nl.shared_hbm)
    scratch4 = nl.ndarray((5, 130), dtype=nl.float32, buffer=nl.hbm)
    g_v0 = g.reshape((1, 130))
    const0 = nl.full((128, 1), 1e-06, dtype=nl.float32)
    # stages 0-1 as one row group, intermediates in SBUF
    ip = nl.arange(5)[:, None]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    jf = nl.arange(130)[None, :]
    t0 = nl.load(x[ip, jf])
    t1 = nisa.activation(op=nl.square, data=t0)
    t2 = nisa.tensor_reduce(op=nl.add, data=t1, axis=(1,), keepdims=True)
    jf = nl.arange(130)[None, :]
    t3 = nl.load(g_v0[zp, jf])
    t4 = nl.broadcast_to(t3, shape=(5, 130))
    t5 = nisa.activation(op=nl.sqrt, data=t2, scale=0.00769230769, bias=const0[0:5, 0:1])
    t6 = nisa.tensor_scalar(data=t0, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t5), engine=nisa.vector_engine)
    t7 = nisa.tensor_tensor(data1=t6, data2=t4, op=nl.multiply)
    nl.store(scratch4[ip, jf], value=t7)
    del t0, t1, t2, t3, t4, t5, t6, t7  # the block's tiles end here
    # stage 2: einsum ab,bc->ac on the Tensor engine, K tiles accumulated in PSUM
    acc8 = nl.zeros((5, 65), dtype=nl.float32, buffer=nl.psum)
    ip = nl.arange(128)[:, None]
    jm = nl.arange(5)[None, :]
    jn = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    ir = nl.arange(5)[:, None]
    jk = nl.arange(128)[None, :]
    t9 = nl.load(scratch4[ir, jk])
    t10 = nisa.nc_transpose(t9, engine=nisa.tensor_engine)
    t11 = nisa.tensor_copy(t10, engine=nisa.vector_engine)
    t12 = nl.load(w[ip, jn])
    acc8 += nisa.nc_matmul(t11, t12)
    del t9, t10, t11, t12  # the block's tiles end here
    # the last partition tile: 2 of 128
    ip = nl.arange(2)[:, None]
    jm = nl.arange(5)[None, :]
    jn = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    ir = nl.arange(5)[:, None]
    jk = nl.arange(2)[None, :]
    t13 = nl.load(scratch4[ir, 128 + jk])
    t14 = nisa.nc_transpose(t13, engine=nisa.tensor_engine)
    t15 = nisa.tensor_copy(t14, engine=nisa.vector_engine)
    t16 = nl.load(w[128 + ip, jn])
    acc8 += nisa.nc_matmul(t15, t16)
    del t13, t14, t15, t16  # the block's tiles end here
    ip = nl.arange(5)[:, None]
    jf = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    t17 = nisa.tensor_copy(acc8, engine=nisa.vector_engine)
    nl.store(out0[ip, jf], value=t17)
    del acc8, t17  # the block's tiles end here
    return out0
