"""A LLaMA MLP with the gate and up projections fused into one weight, as
inference engines store it: one matmul, then np.array_split into gate and up,
SiLU(gate) * up and the down projection."""
import numpy as np

SIZES = {
    "test": {"T": 5, "D": 6, "F": 10},
    "bench": {"T": 512, "D": 4096, "F": 11008},
}


def llama_fused_gate_up(x: "f32[T, D]", w_gate_up: "f32[D, 2*F]", w_down: "f32[F, D]") -> "f32[T, D]":
    gate, up = np.array_split(x @ w_gate_up, 2, axis=1)
    return (gate / (1 + np.exp(-gate)) * up) @ w_down
