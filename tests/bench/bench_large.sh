#!/usr/bin/env bash
# ELECTRA-large-shaped discriminator (`make bench-large`, or BENCH_LARGE=1 make bench):
# the shape of the hub's best GED models (24 layers, hidden 1024, 16 heads, FFN 4096,
# embedding 1024, vocab 30522; the `large` preset of electra-train), random weights.
# fp32 and int8, beside ONNX Runtime's fp32 and dynamic-int8 exports of the same model
# (tests/bench/export_onnx.py, onnxruntime-node as in bench_ort.sh): a 40-word sentence
# (42 tokens) at batch 1 and 32 copies of it at batch 32, all four sides in alternating
# rounds; /score through electra-server (fp32 and --dtype int8 servers taking turns):
# latency at 1 client, requests/s at 32; resident memory of each loaded model. Prints
# Markdown tables (tests/bench/bench_large.py). Skipped by a plain `make bench`: it
# writes a 1.3 GB checkpoint and two ONNX files (cached in $TMPDIR/electra-bench-large)
# and runs for 10-20 minutes on 2 idle cores.
# Knobs: BENCH_ROUNDS (2), BENCH_SECONDS (per case and side each round, 4),
# BENCH_SERVER_SECONDS (per /score measurement, 1 client 10 and 32 clients 60 s:
# "10,60"), BENCH_THREADS (2), BENCH_LARGE_DIR (the cache).
set -eu
cd "$(dirname "$0")/../.."
if [ "${BENCH_LARGE:-0}" != 1 ]; then
  echo "bench_large.sh: not run (ELECTRA-large shape, 10-20 minutes): make bench-large" \
    "or BENCH_LARGE=1"
  exit 0
fi
export BUILD=${BUILD:-build} PYTHON=${PYTHON:-/usr/bin/python3}
for b in bench/bench_forward bench/bench_server_client bin/electra-server; do
  [ -x "$BUILD/$b" ] || { echo "bench_large.sh: $BUILD/$b not built (run make)"; exit 1; }
done
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "bench_large.sh: SKIP, PyTorch ($PYTHON) is needed to write the random checkpoint"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/electra-bench-large-run.XXXXXX")
trap 'rm -rf "$dir"' EXIT
. tests/bench/ort_lib.sh
if why=$(ort_install); then
  export ORT_NODE_PATH="$ORT_DIR/node_modules"
else
  export ORT_NODE_PATH="" ORT_WHY="$why"
fi
# a large model takes a while to load; the server helper's timeouts stretch by SLOW
SLOW=${SLOW:-20} exec "$PYTHON" tests/bench/bench_large.py "$dir"
