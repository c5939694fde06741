#!/usr/bin/env bash
# Learning check (issue 3, `make bench`): pretrain `tiny` ELECTRA on
# /work/shared/data/corpus for BENCH_MINUTES (20) minutes of training and
# report the validation curve. The discriminator must beat the all-"original"
# baseline on replaced tokens (AUC well above 0.5) and the generator's
# accuracy at masked positions must rise well above the unigram baseline
# (always predicting the most frequent masked token, computed from the
# held-out data by the trainer).
#
# Steps: learn an 8192-entry vocabulary from the corpus; a 12-step
# calibration run measures the step time on this machine (and builds the
# token cache) to space ~10 validations and 4 checkpoints over the run; the
# real run gets --time-limit only: the trainer plans its learning-rate
# schedule (warmup, decay to 0) to end at the limit from its own measured
# step time (train/model/schedule.h), so no --max-steps is needed.
#   BENCH_MINUTES=20 THREADS=2 BENCH_OUT=/tmp/el_bench_learning PRETRAIN_ARGS= tests/bench/bench_learning.sh
# Pass criteria printed at the end (docs/RESULTS.md §1, item 2):
#  - discriminator: held-out AUC >= 0.55 AND held-out loss below the binary
#    entropy of the replaced fraction, i.e. below the loss of the all-"original"
#    answer given at the base rate. 0.55 is > 10 standard errors above chance
#    (~5,000 replaced vs ~35,000 original held-out tokens: SE ~0.004). It was
#    0.70 until 2026-11-25; two independent PyTorch ELECTRAs showed that the
#    objective itself does not get there in this budget (docs/RESULTS.md §1).
#  - generator: accuracy at masked positions >= 1.5 x the unigram baseline.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
CORPUS=${CORPUS:-/work/shared/data/corpus}
MINUTES=${BENCH_MINUTES:-20}
THREADS=${THREADS:-2}
OUT=${BENCH_OUT:-/tmp/el_bench_learning}
# libgomp's default spin-waiting fights OpenBLAS's threads for the cores
# (measured: 70% of cycles in libgomp, 4x slower steps on a busy 2-core box);
# passive waiting changes no result, only the speed.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

if ! ls "$CORPUS"/*/*.txt >/dev/null 2>&1; then
  echo "SKIP: no corpus at $CORPUS (*/*.txt); the learning check needs it"
  exit 0
fi
[ -x "$BIN" ] || { echo "error: $BIN not built (make)"; exit 1; }
rm -rf "$OUT"
mkdir -p "$OUT"
inputs=("$CORPUS"/*/*.txt)
echo "corpus: ${#inputs[@]} files, $(cat "${inputs[@]}" | wc -c) bytes; budget ${MINUTES} min, $THREADS threads"

t0=$(date +%s)
"$BIN" vocab --input "${inputs[@]}" --vocab-size 8192 --out "$OUT/vocab.txt" || exit 1

# PRETRAIN_ARGS="--tie-generator" (etc.) adds pretrain options to both runs
read -r -a extra <<<"${PRETRAIN_ARGS:-}"
COMMON=(--input "${inputs[@]}" --vocab "$OUT/vocab.txt" --preset tiny --batch-size 32
        --seq-len 128 --threads "$THREADS" --cache "$OUT/tokens.bin" --seed 1 "${extra[@]}")
"$BIN" pretrain "${COMMON[@]}" --out "$OUT/calib" --max-steps 12 --log-every 4 --val-every 0 \
  --save-every 0 2>"$OUT/calib.log" || { tail -3 "$OUT/calib.log"; exit 1; }
grep -E "^(tokenizing|  [0-9]+ lines)" "$OUT/calib.log"
step_s=$("$PY" - "$OUT/calib/metrics.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"train"' in l]
# seconds per step from the last interval (warm caches), tokens/s -> steps/s
r = rows[-1]; prev = rows[-2]
print("%.4f" % ((r["time_s"] - prev["time_s"]) / (r["step"] - prev["step"])))
EOF
)
budget=$((MINUTES * 60))
# ~7% of the time goes to 10 validations of 512 sequences and 4 checkpoints
steps=$("$PY" -c "print(max(50, int($budget * 0.93 / $step_s)))")
val_every=$((steps / 10))
echo "calibration: $step_s s/step -> about $steps steps (validation every $val_every); the trainer plans the LR schedule for ${MINUTES}m"

CMD=("$BIN" pretrain "${COMMON[@]}" --out "$OUT/run" --time-limit "${MINUTES}m"
     --val-every "$val_every" --save-every $((steps / 4)) --log-every 20)
echo "command: ${CMD[*]}" | sed "s|$CORPUS/[^ ]*\.txt|@|g; s|@\( @\)*|$CORPUS/*/*.txt|"
t1=$(date +%s)
"${CMD[@]}" 2>"$OUT/run.log"
rc=$?
t2=$(date +%s)
grep -E "^(validation|finished|time limit|time plan|data:|discriminator)" "$OUT/run.log"
echo "training wall time: $((t2 - t1)) s (exit $rc); total with vocabulary and calibration: $((t2 - t0)) s"

"$PY" - "$OUT/run/metrics.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
val = [r for r in rows if r["kind"] == "val"]
tr = [r for r in rows if r["kind"] == "train"]
print("\nvalidation curve (held-out slice):")
print("%7s %8s %9s %9s %9s %9s %9s %8s %9s %9s" % ("step", "minutes", "gen_loss", "gen_acc", "unigram",
      "disc_loss", "base_rate", "disc_acc", "disc_auc", "replaced"))
for r in val:
    print("%7d %8.1f %9.4f %9.4f %9.4f %9.4f %9.4f %8.4f %9.4f %9.4f" % (
        r["step"], r["time_s"] / 60, r["gen_loss"], r["gen_acc"], r["unigram_acc"], r["disc_loss"],
        r["disc_base_loss"], r["disc_acc"], r["disc_auc"], r["replaced_frac"]))
if tr:
    tps = sorted(r["tokens_per_s"] for r in tr)
    print("\ntraining throughput: median %.0f tokens/s (%d logged intervals)" % (tps[len(tps) // 2], len(tps)))
last = val[-1]
prior_loss = last["disc_base_loss"]
ok_auc = last["disc_auc"] >= 0.55
ok_loss = last["disc_loss"] < prior_loss
ok_gen = last["gen_acc"] >= 1.5 * last["unigram_acc"]
print("\nfinal: discriminator AUC %.4f (chance 0.5, need >= 0.55): %s" % (last["disc_auc"], "PASS" if ok_auc else "FAIL"))
print("final: discriminator loss %.4f vs %.4f of the constant answer P(replaced) = base rate (need below): %s" % (
    last["disc_loss"], prior_loss, "PASS" if ok_loss else "FAIL"))
print("final: generator accuracy %.4f vs unigram %.4f (need >= 1.5x): %s" % (
    last["gen_acc"], last["unigram_acc"], "PASS" if ok_gen else "FAIL"))
sys.exit(0 if ok_auc and ok_loss and ok_gen else 1)
EOF
status=$?
echo "artifacts: $OUT/run/loss.svg $OUT/run/metrics.jsonl $OUT/run.log"
exit $status
