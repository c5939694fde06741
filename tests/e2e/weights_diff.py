"""Largest absolute difference between two checkpoints' model.safetensors
(every float32 tensor; the same names and shapes required), and the largest
|weight| for scale. Usage: weights_diff.py A/model.safetensors B/model.safetensors
Prints "max_abs_diff MAXABS max_abs_weight W tensors N"; exit 1 on a mismatch
of names or shapes."""
import json
import struct
import sys

import numpy as np


def load(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in head.items():
        if name == "__metadata__" or t["dtype"] != "F32":
            continue
        a, b = t["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype=np.float32).reshape(t["shape"])
    return out


x, y = load(sys.argv[1]), load(sys.argv[2])
if x.keys() != y.keys() or any(x[k].shape != y[k].shape for k in x):
    print("tensor names or shapes differ")
    sys.exit(1)
diff = max(float(np.max(np.abs(x[k] - y[k]))) for k in x)
scale = max(float(np.max(np.abs(x[k]))) for k in x)
print(f"max_abs_diff {diff:.3e} max_abs_weight {scale:.3e} tensors {len(x)}")
