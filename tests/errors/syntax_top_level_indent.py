# expect: 5:3: error: unexpected indentation
import numpy as np


  def k(x: "f32[M, N]"):
    return x
