#!/usr/bin/env bash
# tests/bench/export_onnx.py --int8 (ONNX Runtime's int8 peer in bench_ort.sh): on a small
# random discriminator, the quantized graph has the shape quantize_dynamic writes (every
# weight MatMul -> DynamicQuantizeLinear + MatMulInteger + Cast + Mul, int8 weights within
# half a step of fp32, embeddings gathered from uint8 tables), a deliberately wrong code is
# caught by the exporter's own check, and, where onnxruntime-node is installed
# ($BUILD/onnxruntime, as bench_ort.sh leaves it), ONNX Runtime's int8 probabilities are
# within 0.02 of its fp32 ones.
set -u
cd "$(dirname "$0")/../.."
. tests/tap.sh
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
if ! "$PYTHON" -c 'import torch, onnx' 2>/dev/null; then
  skip "python3-torch and python3-onnx are needed (Debian: apt-get install python3-onnx)"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/electra-test-onnx8.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$PYTHON" tests/reference/make_checkpoint.py --arch pretraining --out "$dir/m" --hidden 64 \
  --layers 2 --heads 2 --intermediate 128 --embedding 32 --max-position 64 --std 0.05 \
  --seed 3 >/dev/null
check "export fp32 + int8 (per channel)" "$PYTHON" tests/bench/export_onnx.py --model "$dir/m" \
  --out "$dir/m.onnx" --int8 "$dir/m8.onnx" >"$dir/export.log" 2>&1
check "quantize per tensor" "$PYTHON" tests/bench/export_onnx.py --quantize "$dir/m.onnx" \
  --int8 "$dir/m8t.onnx" --per-tensor >>"$dir/export.log" 2>&1

"$PYTHON" - "$dir" <<'PY'
import collections
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, "tests/bench")
import export_onnx as ex  # noqa: E402

d = sys.argv[1]
fails = 0


def check(ok, msg):
    global fails
    print(("ok - " if ok else "not ok - ") + msg)
    fails += not ok


f32, q8 = onnx.load(os.path.join(d, "m.onnx")), onnx.load(os.path.join(d, "m8.onnx"))
inits32 = {t.name: numpy_helper.to_array(t) for t in f32.graph.initializer}
inits8 = {t.name: numpy_helper.to_array(t) for t in q8.graph.initializer}
wmm = [n for n in f32.graph.node if n.op_type == "MatMul" and n.input[1] in inits32]
ops = collections.Counter(n.op_type for n in q8.graph.node)
# 2 layers x (Q, K, V, attention out, FFN in, FFN out) + E->H projection + head dense + head out
check(len(wmm) == 15, "fp32 export has 15 weight MatMuls (got %d)" % len(wmm))
check(ops["MatMulInteger"] == len(wmm), "every weight MatMul became MatMulInteger (%d)" %
      ops["MatMulInteger"])
# Q, K and V share one quantized input: 2 per layer for them + out + FFN in + FFN out, + 3
check(ops["DynamicQuantizeLinear"] == 2 * 4 + 3,
      "one DynamicQuantizeLinear per distinct activation (got %d)" % ops["DynamicQuantizeLinear"])
check(not any(n.op_type == "MatMul" and n.input[1] in inits8 for n in q8.graph.node),
      "no MatMul with a weight input is left in fp32")
check(ops["MatMul"] == 2 * 2, "attention's 4 activation MatMuls stay fp32 (got %d)" % ops["MatMul"])
check(ops["DequantizeLinear"] == 3 and ops["Cast"] >= len(wmm),
      "3 embedding Gathers dequantized, every MatMulInteger cast to float")
worst = 0.0
for n in wmm:
    w = inits32[n.input[1]]
    q = inits8[n.input[1] + "_quantized"]
    s = inits8[n.input[1] + "_scale"]
    ok = q.dtype == np.int8 and s.shape == (w.shape[1],) and np.abs(q).max() <= 127
    worst = max(worst, float(np.abs(w - q.astype(np.float32) * s[None, :]).max()
                             / (0.5 * s.max())))
    if not ok:
        check(False, "%s: int8, one scale per output channel" % n.input[1])
check(worst <= 1.001, "weights within half a step of fp32 (worst %.3f steps/2)" % worst)
t8 = onnx.load(os.path.join(d, "m8t.onnx"))
st = [numpy_helper.to_array(t) for t in t8.graph.initializer if t.name.endswith("_scale")]
check(all(s.ndim == 0 for s in st), "--per-tensor: one scale per matrix")

# the exporter's own check catches a code one step off
orig = ex.quantize_s8_symmetric


def off_by_one(w, axis):
    q, s, z = orig(w, axis)
    q = q.copy()
    q.flat[0] = np.int8(q.flat[0] + (1 if q.flat[0] < 127 else -1))
    return q, s, z


ex.quantize_s8_symmetric = off_by_one
try:
    ex.quantize_file(os.path.join(d, "m.onnx"), os.path.join(d, "bad.onnx"), True)
    check(False, "a wrong weight code is refused")
except SystemExit as e:
    check("half a step" in str(e), "a wrong weight code is refused: %s" % e)
sys.exit(fails > 0)
PY
[ $? -eq 0 ] || fails=$((fails + 1))

ort="$BUILD/onnxruntime/node_modules"
if [ -d "$ort/onnxruntime-node" ] && command -v node >/dev/null; then
  "$PYTHON" -c 'import numpy as np, sys
np.random.default_rng(5).integers(5, 600, 256).astype(np.int32).tofile(sys.argv[1])' \
    "$dir/ids.i32"
  mkdir -p "$dir/o32" "$dir/o8"
  for m in m:o32 m8:o8; do
    NODE_PATH="$ort" node tests/bench/bench_ort.js --onnx "$dir/${m%%:*}.onnx" \
      --ids "$dir/ids.i32" --threads 1 --seconds 0 --len 40 --batches 1,4 \
      --mixed 7,40,23 --dump "$dir/${m##*:}" >/dev/null 2>"$dir/ort.err" ||
      nok "ONNX Runtime runs ${m%%:*}.onnx: $(tail -n 1 "$dir/ort.err")"
  done
  d=$("$PYTHON" -c 'import numpy as np, sys, glob, os
w = 0
for f in glob.glob(sys.argv[1] + "/o32/*.f32"):
    a = np.fromfile(f, np.float32)
    b = np.fromfile(os.path.join(sys.argv[1], "o8", os.path.basename(f)), np.float32)
    w = max(w, float(np.abs(a - b).max()))
print("%.5f" % w)' "$dir")
  check "ONNX Runtime int8 within 0.02 of its fp32 (max |Δ| $d)" \
    "$PYTHON" -c "import sys; sys.exit(not 0 < $d <= 0.02)"
else
  skip "onnxruntime-node not installed in $ort (tests/bench/bench_ort.sh installs it)"
fi
exit $((fails > 0))
