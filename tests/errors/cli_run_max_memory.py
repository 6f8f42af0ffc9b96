# expect: 7:14: error: evaluating 'k' at these sizes needs 2.5 MiB of memory (its peak, at this op) but the limit is 1.0 MiB (--max-memory)
# args: run --dims M=256,K=256 --max-memory 1M
import numpy as np


def k(a: "f32[M, K]", b: "f32[K, M]") -> "f32[M, M]":
    return a @ b
