#!/usr/bin/env bash
# Learning parity (`make bench`): the same ELECTRA pretraining, `tiny` preset,
# batch 32 x 128, run by electra-train and by an independent PyTorch
# implementation (tests/bench/learning_pytorch.py) on the same token cache,
# side by side. Both print the discriminator's loss next to the loss of
# always predicting the replaced fraction (base-rate entropy) and the AUC of
# P(replaced) on replaced tokens; the generator's loss and accuracy.
# It answers "is a stalled discriminator a bug in the C trainer, or the
# objective at this compute?": matching curves say the latter.
#   PARITY_STEPS=300 LR=5e-4 WARMUP=30 THREADS=2 tests/bench/bench_learning_pytorch.sh
# Skipped when ../shared/data/corpus or PyTorch is absent. PyTorch takes
# ~2 s per step on 2 cores, so the default 300 steps cost ~12 minutes.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
CORPUS=${CORPUS:-$(cd .. && pwd)/shared/data/corpus}
VOCAB=${VOCAB:-$(cd .. && pwd)/shared/data/vocab/bert-base-uncased-vocab.txt}
STEPS=${PARITY_STEPS:-300}
LR=${LR:-5e-4}  # tiny's default
WARMUP=${WARMUP:-$((STEPS / 10))}
THREADS=${THREADS:-2}
OUT=${BENCH_OUT:-/tmp/el_bench_parity}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

if ! ls "$CORPUS"/*/*.txt >/dev/null 2>&1 || [ ! -f "$VOCAB" ]; then
  echo "SKIP: no corpus at $CORPUS or no vocabulary at $VOCAB"
  exit 0
fi
if ! "$PY" -c 'import torch, numpy' 2>/dev/null; then
  echo "SKIP: $PY has no torch/numpy (install python3-torch)"
  exit 0
fi
[ -x "$BIN" ] || { echo "error: $BIN not built (make)"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"
# The first 8 MB of the corpus is plenty for a few hundred steps.
cat "$CORPUS"/*/*.txt | head -c 8000000 >"$OUT/corpus.txt"
echo "ELECTRA tiny, batch 32 x 128, $STEPS steps, lr $LR, warmup $WARMUP, $THREADS threads"

t0=$(date +%s)
"$BIN" pretrain --input "$OUT/corpus.txt" --vocab "$VOCAB" --out "$OUT/c" --cache "$OUT/tokens.bin" \
  --preset tiny --max-steps "$STEPS" --lr "$LR" --warmup-steps "$WARMUP" --threads "$THREADS" \
  --val-every $((STEPS / 3)) --log-every 25 --save-every 0 --seed 1 2>"$OUT/c.log" ||
  { tail -3 "$OUT/c.log"; exit 1; }
t1=$(date +%s)
echo
echo "== electra-train ($((t1 - t0)) s): training lines, then validation on the held-out slice"
"$PY" - "$OUT/c/metrics.jsonl" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("%6s %8s %8s %8s" % ("step", "gen_loss", "gen_acc", "disc"))
for r in rows:
    if r["kind"] == "train":
        print("%6d %8.3f %8.4f %8.4f" % (r["step"], r["gen_loss"], r["gen_acc"], r["disc_loss"]))
for r in rows:
    if r["kind"] == "val":
        print("validation step %d: disc loss %.4f (base rate %.4f), AUC %.4f, gen acc %.4f (unigram %.4f)" % (
            r["step"], r["disc_loss"], r["disc_base_loss"],
            r["disc_auc"], r["gen_acc"], r["unigram_acc"]))
PYEOF
echo
echo "== PyTorch (tests/bench/learning_pytorch.py)"
OMP_NUM_THREADS=$THREADS "$PY" tests/bench/learning_pytorch.py "$OUT/tokens.bin" "$VOCAB" "$STEPS" "$LR" \
  "$WARMUP" 25 || exit 1
echo "PyTorch wall time: $(($(date +%s) - t1)) s"
