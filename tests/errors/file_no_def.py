# expect: 1:1: error: the file defines no kernel (no 'def')
import numpy as np


SCALE = 2.0
"""A docstring but no def."""
