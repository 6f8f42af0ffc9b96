"""f16 and bf16 annotations. Mixed f16/bf16 operands promote to f32."""
import numpy as np

SIZES = {
    "test": {"M": 5, "N": 13},
    "bench": {"M": 1024, "N": 1024},
}


def dtypes(a: "f16[M, N]", b: "bf16[N]", c: "f32[M, 1]") -> "f32[M, N]":
    return a * b + c
