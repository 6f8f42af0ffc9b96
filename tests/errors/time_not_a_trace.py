# expect: time_not_a_trace.py:1:1: error: bad trace record: not valid JSON: expected a value
# args: time
# A Python file is no instruction trace: axon time names its first line.
