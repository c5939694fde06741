#!/usr/bin/env bash
# The trainer's math against PyTorch autograd (float64): the C side
# (build/tests/test_train_math_grad --dump) runs nine cases on small models --
# the ELECTRA step (generator + discriminator, shared embeddings or one tied
# encoder, fixed masking plan, its own Gumbel samples written out), the MLM
# baseline, and the classification, regression, QA and GED heads through the
# fine-tuner's own losses (train/finetune/finetune_heads.c on nn/op_loss_head.c), and the
# ELECTRA step and the GED head again with position_embedding_type relative_key --
# with dropout off, and writes the
# initial parameters, batch, losses and every gradient, plus 10 AdamW steps
# (clip, weight decay, warmup + linear decay) for electra and cls.
# tests/reference/train_ref.py recomputes everything from the math and prints
# TAP lines; tolerances are stated at the top of train_ref.py.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/tests/test_train_math_grad

if [ ! -x "$BIN" ]; then
  echo "not ok - $BIN is not built (make $BIN)"
  exit 1
fi
if ! "$PYTHON" -c 'import torch, numpy' 2>/dev/null; then
  echo "ok - # SKIP $PYTHON has no torch/numpy (install python3-torch)"
  exit 0
fi
work=$(mktemp -d /tmp/el-train-ref.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! "$BIN" --dump "$work/d" >"$work/c.log" 2>&1; then
  echo "not ok - $BIN --dump failed:"
  sed 's/^/#   /' "$work/c.log" | tail -20
  exit 1
fi
grep '^not ok' "$work/c.log"
OMP_NUM_THREADS=2 "$PYTHON" tests/reference/train_ref.py "$work/d"
