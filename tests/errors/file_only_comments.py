# expect: 1:1: error: the file defines no kernel (no 'def')
# This file has only comments.
# There is no kernel here.
