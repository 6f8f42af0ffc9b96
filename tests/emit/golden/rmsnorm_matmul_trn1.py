# rmsnorm_matmul: NKI kernel for trn1 (NeuronCore-v2, NKI Beta 1), emitted by Axon.
# Every instruction is a proved lowering from trn1.json; partial tiles are peeled, not masked.
import numpy as np
from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def rmsnorm_matmul(x, w, g):
    out0 = nl.ndarray((5, 65), dtype=nl.float32, buffer=nl.shared_hbm)
    g_v0 = g.reshape((1, 130))
    const0 = nl.full((128, 1), 1e-06, dtype=nl.float32)
    # stages 0-1 as one row group, intermediates in SBUF, its rows multiplied in SBUF by stage 2: einsum ab,bc->ac on the Tensor engine
    ip = nl.arange(5)[:, None]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    jf = nl.arange(130)[None, :]
    t0 = nl.load(x[ip, jf])
    t2 = nl.ndarray((5, 1), dtype=nl.float32, buffer=nl.sbuf)
    t1 = nisa.activation_reduce(op=nl.square, data=t0, reduce_op=nl.add, reduce_res=t2)
    jf = nl.arange(130)[None, :]
    t3 = nl.load(g_v0[zp, jf])
    t4 = nl.broadcast_to(t3, shape=(5, 130))
    t5 = nisa.activation(op=nl.sqrt, data=t2, scale=0.00769230769, bias=const0[0:5, 0:1])
    t6 = nisa.tensor_scalar(data=t0, op0=nl.multiply, operand0=nisa.activation(op=nl.reciprocal, data=t5), engine=nisa.vector_engine)
    t7 = nisa.tensor_tensor(data1=t6, data2=t4, op=nl.multiply)
    acc8 = nl.zeros((5, 65), dtype=nl.float32, buffer=nl.psum)
    ip = nl.arange(128)[:, None]
    jm = nl.arange(5)[None, :]
    jn = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    ir = nl.arange(5)[:, None]
    jk = nl.arange(128)[None, :]
    t9 = nisa.nc_transpose(t7[ir, jk], engine=nisa.tensor_engine)
    t10 = nisa.tensor_copy(t9, engine=nisa.vector_engine)
    t11 = nl.load(w[ip, jn])
    acc8 += nisa.nc_matmul(t10, t11)
    del t9, t10, t11  # the block's tiles end here
    # the last partition tile: 2 of 128
    ip = nl.arange(2)[:, None]
    jm = nl.arange(5)[None, :]
    jn = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    ir = nl.arange(5)[:, None]
    jk = nl.arange(2)[None, :]
    t12 = nisa.nc_transpose(t7[ir, 128 + jk], engine=nisa.tensor_engine)
    t13 = nisa.tensor_copy(t12, engine=nisa.vector_engine)
    t14 = nl.load(w[128 + ip, jn])
    acc8 += nisa.nc_matmul(t13, t14)
    del t12, t13, t14  # the block's tiles end here
    ip = nl.arange(5)[:, None]
    jf = nl.arange(65)[None, :]
    zp = nl.arange(1)[:, None]
    zf = nl.arange(1)[None, :]
    t15 = nisa.tensor_copy(acc8, engine=nisa.vector_engine)
    nl.store(out0[ip, jf], value=t15)
    del acc8, t15  # the block's tiles end here
    del t0, t1, t2, t3, t4, t5, t6, t7  # the block's tiles end here
    return out0
