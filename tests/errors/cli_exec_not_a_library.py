# expect: kernel.so is not a kernel library written by axon optimize: dlopen: 
# args: exec {dir}/out
# program: none
# setup: import os; os.mkdir("{dir}/out"); open("{dir}/out/kernel.so", "w").write("not an ELF file")
# setup: open("{dir}/out/kernel.json", "w").write('{"kernel": "k", "inputs": [], "outputs": [{"name": "out0", "dtype": "f32", "shape": [2]}]}')
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
