# expect: error: bad --max-memory '-5G': expected bytes with an optional unit
# args: run --dims M=4 --max-memory -5G
import numpy as np


def k(a: "f32[M]") -> "f32[M]":
    return a * 2.0
