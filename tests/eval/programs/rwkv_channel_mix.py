"""An RWKV-style channel mix: token shift mixing, squared ReLU key, sigmoid receptance."""
import numpy as np

SIZES = {"test": {"M": 4, "D": 64, "F": 256}, "bench": {"M": 8, "D": 2048, "F": 8192}}


def rwkv_channel_mix(x: "f32[M, D]", xx: "f32[M, D]", mk: "f32[D]", mr: "f32[D]", wk: "f32[D, F]", wv: "f32[F, D]", wr: "f32[D, D]"):
    xk = x * mk + xx * (1.0 - mk)
    xr = x * mr + xx * (1.0 - mr)
    k = np.square(np.maximum(xk @ wk, 0.0))
    r = 1.0 / (1.0 + np.exp(-(xr @ wr)))
    return r * (k @ wv)
