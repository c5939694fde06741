#!/usr/bin/env bash
# The ELECTRA step at the real `tiny` shape (vocabulary 30522, 32 packed
# sequences, ~2,750 tokens) against PyTorch autograd in float64: the C side
# (build/tests/test_train_scale_grad --dump) trains 5 AdamW steps, then
# writes parameters, batch, plan, samples, losses and every gradient with
# dropout off; tests/reference/scale_ref.py recomputes them with a padded
# batch. Tolerances are stated at the top of scale_ref.py.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/tests/test_train_scale_grad

if [ ! -x "$BIN" ]; then
  echo "not ok - $BIN is not built (make $BIN)"
  exit 1
fi
if ! "$PYTHON" -c 'import torch, numpy' 2>/dev/null; then
  echo "ok - # SKIP $PYTHON has no torch/numpy (install python3-torch)"
  exit 0
fi
work=$(mktemp -d /tmp/el-scale-ref.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! "$BIN" --dump "$work/d" >"$work/c.log" 2>&1; then
  echo "not ok - $BIN --dump failed:"
  sed 's/^/#   /' "$work/c.log" | tail -20
  exit 1
fi
grep '^not ok' "$work/c.log"
OMP_NUM_THREADS=2 "$PYTHON" tests/reference/scale_ref.py "$work/d"
