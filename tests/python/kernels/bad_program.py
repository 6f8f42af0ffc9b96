"""np.sort is outside the NumPy subset: a ProgramError at line 6, column 15 (at "sort")."""
import numpy as np


def bad(x: "f32[N]"):
    return np.sort(x)
