# expect: error: .astype: converting a bf16[M, N] tensor to float32 is not supported yet (it would round); declare the parameter f32
import numpy as np


def k(x: "bf16[M, N]"):
    return x.astype(np.float32)
