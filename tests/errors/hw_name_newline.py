# expect: broken.json:1:10: error: description.name: contains the control character U+000A
# args: hw {dir}/broken.json
# program: none
# setup: open("{dir}/broken.json", "w").write('{"name": "x86\\n#error broken", "target": "cpu"}')
import numpy as np


def k(x: "f32[M, N]"):
    return x * 2.0
