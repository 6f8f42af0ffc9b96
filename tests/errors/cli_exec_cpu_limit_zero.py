# expect: error: --cpu-limit must be at least 1 second
# args: exec {dir}/out --cpu-limit 0
# program: none
# setup: import os; os.mkdir("{dir}/out"); open("{dir}/out/kernel.so", "w").write("x"); open("{dir}/out/kernel.json", "w").write("{}")
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
