# expect: <command line>:1:52: error: bad --dims entry 'M': expected NAME=INTEGER or a preset (bench, test)
# args: run --dims M
import numpy as np


SIZES = {"test": {"M": 3, "N": 4}, "bench": {"M": 1024, "N": 512}}


def k(x: "f32[M, N]", y: "f32[M]"):
    return x * y[:, None], x.sum(axis=1)
