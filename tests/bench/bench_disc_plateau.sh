#!/usr/bin/env bash
# The discriminator's plateau, measured (docs/RESULTS.md §1): on
# unigram replacements a bigram-count detector separates replaced tokens at
# once, while a tiny transformer discriminator trained from scratch (here an
# independent PyTorch one) stays near AUC 0.5 for hundreds of steps at 128
# tokens, and learns within ~2000 steps at 32 (STEPS=3000, add --seq-len 32
# to the disc_plateau.py line). That the C trainer's plateau was its learning
# rate, not this, is docs/RESULTS.md §1, item 2.
#   STEPS=300 tests/bench/bench_disc_plateau.sh [discriminator dirs to probe...]
# Needs ../shared/data/corpus and python3-torch; ~6 min on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
CORPUS=${CORPUS:-../shared/data/corpus}
VOCAB=${VOCAB:-../shared/data/vocab/bert-base-uncased-vocab.txt}
OUT=${BENCH_OUT:-/tmp/el_bench_plateau}
if ! ls "$CORPUS"/*/*.txt >/dev/null 2>&1 || [ ! -f "$VOCAB" ]; then
  echo "SKIP: no corpus at $CORPUS or no vocabulary at $VOCAB"
  exit 0
fi
"$PY" -c 'import torch, numpy' 2>/dev/null || { echo "SKIP: $PY has no torch/numpy"; exit 0; }
mkdir -p "$OUT"
# a 1-step run builds (or reuses) the token cache
"$BUILD/bin/electra-train" pretrain --input "$CORPUS"/*/*.txt --vocab "$VOCAB" --out "$OUT/cache-run" \
  --cache "$OUT/tokens.bin" --max-steps 1 --val-every 0 --save-every 0 2>"$OUT/cache.log" ||
  { tail -3 "$OUT/cache.log"; exit 1; }
args=()
for d in "$@"; do args+=("$d"); done
"$PY" tests/bench/disc_plateau.py "$OUT/tokens.bin" --steps "${STEPS:-300}" ${args:+--probe "${args[@]}"}
