#!/usr/bin/env bash
# The engine against ONNX Runtime and PyTorch (`make bench`), on the same random
# ELECTRA-Small-shaped discriminator as bench_forward.sh (forward_model.sh), same
# inputs, 2 threads: batches 1/8/32 at length 128 and the mixed-length batch.
#
# ONNX Runtime is what users deploy BERT-style encoders with on CPU: the model
# is exported by tests/bench/export_onnx.py (Debian's python3-torch,
# torch.onnx.export, opset 14) and run by tests/bench/bench_ort.js on
# onnxruntime-node from npm (tests/bench/ort_lib.sh), cached in
# $BUILD/onnxruntime. Without node/npm, or when the install
# fails, the table says so and the engine and PyTorch are still compared.
#
# int8: the engine's --dtype int8 (docs/QUANT.md) against ONNX Runtime on the
# same model quantized as ORT's quantize_dynamic writes it (export_onnx.py
# --int8: DynamicQuantizeLinear + MatMulInteger, int8 weights per output channel,
# which ORT fuses into DynamicQuantizeMatMul; needs Debian's python3-onnx), same
# inputs; each int8 side's probabilities are compared with its own fp32 ones
# (target: within 0.02) and with each other.
#
# The sides run in turns (engine, ORT, engine int8, ORT int8, PyTorch;
# BENCH_ROUNDS rounds, default 3, of BENCH_SECONDS/BENCH_ROUNDS seconds per case
# each, default 3 s in all) so a change in the machine's load hits all alike;
# ms = the best run over all rounds. The outputs (probabilities of the real
# tokens) are compared: max |Δ|.
# Knobs: BENCH_SECONDS, BENCH_ROUNDS, BENCH_THREADS (2), ORT_VERSION (1.30.0),
# ORT_DIR ($BUILD/onnxruntime), BENCH_BASELINE (the bench_forward of another
# build, e.g. before a change: timed in the same rounds, its own column),
# BENCH_INT8=0 (fp32 only), BENCH_TORCH=0 (no PyTorch), ORT_INT8_PER_TENSOR=1 (one weight scale per matrix,
# quantize_dynamic's default, instead of per channel), BENCH_INT8_ONEDNN=1 (the engine's int8
# also with its products on oneDNN's kernels, ELECTRA_QGEMM=onednn, in the same rounds: the
# engine's own int8 kernels against oneDNN's, its own table).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
SECONDS_TOTAL=${BENCH_SECONDS:-3}
ROUNDS=${BENCH_ROUNDS:-3}
THREADS=${BENCH_THREADS:-2}
bin=$BUILD/bench/bench_forward
[ -x "$bin" ] || { echo "bench_ort.sh: $bin not built (run make)"; exit 1; }
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "bench_ort.sh: SKIP, PyTorch ($PYTHON) is needed to write and export the model"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/electra-bench-ort.XXXXXX")
trap 'rm -rf "$dir"' EXIT

. tests/bench/ort_lib.sh
. tests/bench/forward_model.sh
el_bench_model "$dir" >/dev/null
mixed=$(el_bench_mixed)
# 4096 token ids (batch 32 x 128, the largest case), int32, read by all three sides.
"$PYTHON" -c '
import sys, torch
g = torch.Generator().manual_seed(12345)
torch.randint(5, 30522, (4096,), generator=g).to(torch.int32).numpy().tofile(sys.argv[1])' "$dir/ids.i32"

ort=1
if why=$(ort_install); then
  if ! "$PYTHON" tests/bench/export_onnx.py --model "$dir/small" --out "$dir/small.onnx" \
    >"$dir/export.log" 2>&1; then
    why="torch.onnx.export failed: $(grep -v Warning "$dir/export.log" | tail -n 1)"
    ort=0
  fi
else
  ort=0
fi
[ $ort = 1 ] && echo "ONNX Runtime: onnxruntime-node $ORT_VERSION ($ORT_DIR)" ||
  echo "ONNX Runtime: not measured: $why"

# int8 sides: the engine's (unless this build has no oneDNN) and ORT's quantized export.
int8=1 ort8=0
if [ "${BENCH_INT8:-1}" = 0 ]; then
  int8=0
elif ! "$bin" --load-only "$dir/small" --dtype int8 >/dev/null 2>"$dir/err8.txt"; then
  echo "int8: not measured, this build has no int8 path: $(cat "$dir/err8.txt")"
  int8=0
elif [ $ort = 1 ]; then
  per=(); [ "${ORT_INT8_PER_TENSOR:-0}" = 1 ] && per=(--per-tensor)
  if "$PYTHON" tests/bench/export_onnx.py --quantize "$dir/small.onnx" \
    --int8 "$dir/small8.onnx" "${per[@]}" >"$dir/export8.log" 2>&1; then
    ort8=1
    echo "ONNX Runtime int8: $(grep '^int8:' "$dir/export8.log" | sed "s|$dir/||g")"
  else
    echo "ONNX Runtime int8: not measured: $(tail -n 1 "$dir/export8.log")" \
      "(Debian: apt-get install python3-onnx)"
  fi
fi

per=$("$PYTHON" -c "print($SECONDS_TOTAL / $ROUNDS)")
common=(--threads "$THREADS" --seconds "$per" --mixed "$mixed" --ids "$dir/ids.i32")
mkdir -p "$dir/engine" "$dir/ort" "$dir/torch" "$dir/baseline" "$dir/engine8" "$dir/ort8" \
  "$dir/engine8dnn"
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')," \
  "AVX-512: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other processes skew the numbers)"
for r in $(seq "$ROUNDS"); do
  "$bin" --model "$dir/small" "${common[@]}" --dump "$dir/engine" >>"$dir/engine.txt"
  if [ -n "${BENCH_BASELINE:-}" ]; then
    "$BENCH_BASELINE" --model "$dir/small" "${common[@]}" --dump "$dir/baseline" \
      >>"$dir/baseline.txt"
  fi
  if [ $ort = 1 ]; then
    NODE_PATH="$ORT_DIR/node_modules" node tests/bench/bench_ort.js --onnx "$dir/small.onnx" \
      "${common[@]}" --dump "$dir/ort" >>"$dir/ort.txt" ||
      { echo "bench_ort.js failed in round $r"; ort=0; }
  fi
  if [ $int8 = 1 ]; then
    "$bin" --model "$dir/small" --dtype int8 "${common[@]}" --dump "$dir/engine8" \
      >>"$dir/engine8.txt"
  fi
  if [ $int8 = 1 ] && [ "${BENCH_INT8_ONEDNN:-0}" = 1 ]; then
    ELECTRA_QGEMM=onednn "$bin" --model "$dir/small" --dtype int8 "${common[@]}" \
      --dump "$dir/engine8dnn" >>"$dir/engine8dnn.txt"
  fi
  if [ $ort8 = 1 ]; then
    NODE_PATH="$ORT_DIR/node_modules" node tests/bench/bench_ort.js --onnx "$dir/small8.onnx" \
      "${common[@]}" --dump "$dir/ort8" >>"$dir/ort8.txt" ||
      { echo "bench_ort.js (int8) failed in round $r"; ort8=0; }
  fi
  if [ "${BENCH_TORCH:-1}" != 0 ]; then
    "$PYTHON" tests/bench/bench_forward.py --model "$dir/small" "${common[@]}" \
      --dump "$dir/torch" >>"$dir/torch.txt"
  fi
done
if [ $ort8 = 1 ]; then # the graph ORT runs: its fusions of the quantized chains
  NODE_PATH="$ORT_DIR/node_modules" node tests/bench/bench_ort.js --onnx "$dir/small8.onnx" \
    --ids "$dir/ids.i32" --threads "$THREADS" --seconds 0 --batches 1 \
    --optimized "$dir/opt8.onnx" >/dev/null 2>&1 || true
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

"$PYTHON" - "$dir" "$THREADS" "$ROUNDS" <<'PY'
import os
import sys
import numpy as np

d, threads, rounds = sys.argv[1], sys.argv[2], sys.argv[3]


def rows(side, cpu_at=None):
    """{case: [seqs, tokens, best ms over rounds, [median ms per round], least CPU ms]}"""
    out = {}
    path = os.path.join(d, side + ".txt")
    if not os.path.exists(path):
        return out
    for line in open(path):
        w = line.split()
        if not w or w[0] != "case":
            continue
        seqs, toks, best, med = int(w[2]), int(w[3]), float(w[4]), float(w[5])
        # CPU ms of the least busy run: bench_forward's field 10, bench_ort.js's 7
        cpu = float(w[cpu_at]) if cpu_at and len(w) > cpu_at else float("nan")
        o = out.setdefault(w[1], [seqs, toks, best, [], cpu])
        o[2] = min(o[2], best)
        o[3].append(med)
        o[4] = min(o[4], cpu)
    return out


def maxdiff(a, b, name):
    pa, pb = os.path.join(d, a, name + ".f32"), os.path.join(d, b, name + ".f32")
    if not (os.path.exists(pa) and os.path.exists(pb)):
        return "-"
    x, y = np.fromfile(pa, dtype=np.float32), np.fromfile(pb, dtype=np.float32)
    return "%.1e" % np.abs(x - y).max() if x.size == y.size else "size differs"


eng, ort, tor, base = rows("engine", 10), rows("ort", 7), rows("torch"), rows("baseline", 10)
eng8, ort8, dnn8 = rows("engine8", 10), rows("ort8", 7), rows("engine8dnn", 10)
print("ELECTRA-Small-shaped discriminator, %s threads, %s alternating rounds; ms = best "
      "run; speed-up = other's ms / engine ms (> 1: the engine is faster); |Δ| = max "
      "abs difference of the replaced-token probabilities" % (threads, rounds))
print()
print("| batch | seqs | tokens | engine ms | ORT ms | PyTorch ms | vs ORT | vs ORT in CPU time "
      "| vs PyTorch | ORT vs PyTorch | |Δ| engine-ORT | |Δ| engine-PyTorch |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")


def ms(side, name):
    return side[name][2] if name in side else None


def fmt(v, f="%.1f"):
    return f % v if v is not None else "-"


def speedup(a, b):
    return a / b if a is not None and b is not None else None


for name, e in eng.items():
    em, om, tm = e[2], ms(ort, name), ms(tor, name)
    print("| %s | %d | %d | %.1f | %s | %s | %s | %s | %s | %s | %s | %s |" %
          (name, e[0], e[1], em, fmt(om), fmt(tm), fmt(speedup(om, em), "%.2fx"),
           fmt(speedup(ort[name][4] if name in ort else None, e[4]), "%.2fx"),
           fmt(speedup(tm, em), "%.2fx"), fmt(speedup(tm, om), "%.2fx"),
           maxdiff("engine", "ort", name), maxdiff("engine", "torch", name)))
if base:
    print()
    print("Baseline (BENCH_BASELINE, same rounds):")
    print()
    print("| batch | baseline ms | engine ms | engine vs baseline | baseline vs ORT "
          "| |Δ| engine-baseline |")
    print("|---|---|---|---|---|---|")
    for name, e in eng.items():
        bm, om = ms(base, name), ms(ort, name)
        print("| %s | %s | %.1f | %s | %s | %s |" %
              (name, fmt(bm), e[2], fmt(speedup(bm, e[2]), "%.2fx"),
               fmt(speedup(om, bm), "%.2fx"), maxdiff("engine", "baseline", name)))


def absdiff(a, b, name):
    pa, pb = os.path.join(d, a, name + ".f32"), os.path.join(d, b, name + ".f32")
    if not (os.path.exists(pa) and os.path.exists(pb)):
        return None
    x, y = np.fromfile(pa, dtype=np.float32), np.fromfile(pb, dtype=np.float32)
    return float(np.abs(x - y).max()) if x.size == y.size else None


if eng8:
    print()
    print("int8: the engine's --dtype int8 against ONNX Runtime's dynamic int8 export "
          "(same rounds); |Δ| vs fp32 = max abs difference from the same side's fp32 "
          "probabilities")
    print()
    print("| batch | tokens | engine int8 ms | ORT int8 ms | vs ORT int8 | CPU ms engine / ORT "
          "| vs ORT int8 in CPU time | engine int8/fp32 "
          "| ORT int8/fp32 | |Δ| engine int8-fp32 | |Δ| ORT int8-fp32 | |Δ| engine-ORT int8 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, e in eng8.items():
        em, om = e[2], ms(ort8, name)
        ec, oc = e[4], ort8[name][4] if name in ort8 else None
        print("| %s | %d | %.1f | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s |" %
              (name, e[1], em, fmt(om), fmt(speedup(om, em), "%.2fx"), fmt(ec), fmt(oc),
               fmt(speedup(oc, ec), "%.2fx"),
               fmt(speedup(ms(eng, name), em), "%.2fx"),
               fmt(speedup(ms(ort, name), om), "%.2fx"),
               maxdiff("engine8", "engine", name), maxdiff("ort8", "ort", name),
               maxdiff("engine8", "ort8", name)))
    if dnn8:
        print()
        print("int8 products: the engine's own kernels (default) against oneDNN's "
              "(ELECTRA_QGEMM=onednn), same rounds; > 1: the engine's kernels are faster")
        print()
        print("| batch | tokens | own ms | oneDNN ms | own vs oneDNN | CPU ms own / oneDNN "
              "| own vs oneDNN in CPU time | own vs ORT int8 | oneDNN vs ORT int8 "
              "| |Δ| own-oneDNN |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, e in eng8.items():
            em, dm, om = e[2], ms(dnn8, name), ms(ort8, name)
            ec, dc = e[4], dnn8[name][4] if name in dnn8 else None
            print("| %s | %d | %.1f | %s | %s | %s / %s | %s | %s | %s | %s |" %
                  (name, e[1], em, fmt(dm), fmt(speedup(dm, em), "%.2fx"), fmt(ec), fmt(dc),
                   fmt(speedup(dc, ec), "%.2fx"), fmt(speedup(om, em), "%.2fx"),
                   fmt(speedup(om, dm), "%.2fx"), maxdiff("engine8", "engine8dnn", name)))
    opt = os.path.join(d, "opt8.onnx")
    if os.path.exists(opt):
        try:
            import collections
            import onnx
            ops = collections.Counter(n.op_type for n in onnx.load(opt).graph.node)
            print()
            print("ONNX Runtime's optimised int8 graph: " + ", ".join(
                "%d %s" % (ops[k], k) for k in ("DynamicQuantizeMatMul", "MatMulIntegerToFloat",
                                                "DynamicQuantizeLinear", "MatMulInteger",
                                                "MatMul", "FusedMatMul") if ops[k]))
        except ImportError:
            pass
print()
print("raw: side case seqs tokens best_ms least_cpu_ms [median ms per round]")
for name in eng:
    for label, side in (("engine", eng), ("base", base), ("ort", ort), ("pytorch", tor),
                        ("engine8", eng8), ("ort8", ort8), ("int8dnn", dnn8)):
        if name in side:
            s = side[name]
            print("  %-7s %-8s %d %d %.3f %.3f %s" % (label, name, s[0], s[1], s[2], s[4],
                                                      " ".join("%.3f" % m for m in s[3])))
print()
if ort:
    def target(name, want):
        r = speedup(ms(ort, name), ms(eng, name))
        if r is None:
            return "%s: -" % name
        return "%s >= %.1fx ORT: %.2fx %s" % (name, want, r, "met" if r >= want else "MISSED")
    print("Targets: " + "; ".join([target("b1x128", 1.0), target("b32x128", 1.0),
                                   target("mixed", 1.5)]))
else:
    print("Targets vs ONNX Runtime: not measured (no ONNX Runtime)")
if eng8 and ort8:
    def target8(name, want):
        r = speedup(ms(ort8, name), ms(eng8, name))
        if r is None:
            return "%s: -" % name
        rc = speedup(ort8[name][4], eng8[name][4])
        return "%s >= %.1fx ORT int8: %.2fx %s (CPU time %.2fx)" % (
            name, want, r, "met" if r >= want else "MISSED", rc)
    worst = [absdiff(a, b, n) for n in eng8 for a, b in (("engine8", "engine"), ("ort8", "ort"))]
    worst = max(w for w in worst if w is not None) if any(w is not None for w in worst) else None
    print("int8 targets: " + "; ".join([target8("b1x128", 1.5), target8("b32x128", 1.5)]) +
          "; probabilities within 0.02 of fp32 (both sides): %s" %
          ("-" if worst is None else "%.4f %s" % (worst, "met" if worst <= 0.02 else "MISSED")))
PY
