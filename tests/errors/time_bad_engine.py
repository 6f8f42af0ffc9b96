# expect: bad.jsonl:2:1: error: bad trace record: unknown engine 'npu'
# args: time {dir}/bad.jsonl
# program: none
# setup: open("{dir}/bad.jsonl", "w").write('{"seq": 0, "engine": "vector", "op": "memset", "in": [], "out": null}\n{"seq": 1, "engine": "npu", "op": "x", "in": [], "out": null}\n')
