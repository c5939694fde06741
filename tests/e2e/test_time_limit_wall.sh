#!/usr/bin/env bash
# End to end: a time-limited command ends at or just before its --time-limit,
# measured outside the process (start-up, setup, the final validation, dev
# evaluation and save all inside). The runs are chosen so that what follows
# the last step is a large share of the limit: a `small` model (a ~150 MB
# checkpoint with its optimizer state) trained on batches of 4 short
# sequences, so the steps are quick but the final save -- the run's first,
# as the run is shorter than --save-every -- takes a second or more; and a
# GED fine-tuning whose setup (generating and tokenizing the synthetic
# sentences) takes seconds. Runtime: ~30 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_time_wall.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
# Seconds a run may end after its limit: process exit, and a last step or
# save slower than the ones measured (the machine is shared).
TOLERANCE=1

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

"$PY" tests/e2e/simple_text.py "$T" || { bad "generating the text failed"; exit 1; }
"$BIN" vocab --input "$T/text.txt" --vocab-size 120 --out "$T/vocab.txt" 2>/dev/null ||
  { bad "vocab failed"; exit 1; }

# timed LIMIT LOG COMMAND...: runs it; sets rc and wall (seconds, outside the process)
timed() {
  local log=$1 t0
  shift
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$log"
  rc=$?
  wall=$("$PY" -c "print('%.2f' % ($(date +%s.%N) - $t0))")
}
within() { "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"; }
# ends_by NAME LIMIT LOG: the checks on the last timed run
ends_by() {
  check "$1 exits 0 (rc $rc)" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || sed 's/^/#   /' "$3" | tail -5
  check "$1 took ${wall} s: within its ${2} s limit + ${TOLERANCE} s" within "$wall" $(($2 + TOLERANCE))
  grep -E "^(time plan|finetune: time plan|finished|time limit reached|finetune: best)" "$3" |
    cut -c1-200 | sed 's/^/# /'
}

# ---- pretraining: the final save is the run's first ----
P=(--input "$T/text.txt" --vocab "$T/vocab.txt" --preset small --batch-size 4 --seq-len 32
   --threads 2 --log-every 5)
timed "$T/run.log" "$BIN" pretrain "${P[@]}" --out "$T/run" --time-limit 8s
ends_by "pretrain --preset small --time-limit 8s" 8 "$T/run.log"
check "the plan says what it keeps for the final validation and save" \
  grep -qE "^time plan: .* [0-9.]+s kept for the final validation and save" "$T/run.log"
check "the end says what the session took of its limit" \
  grep -qE "^finished .* The session took [0-9.]+s of its 8s limit\.$" "$T/run.log"
check "no trial-save directory left behind" sh -c "! ls -d '$T'/run/save-trial* 2>/dev/null"

# ---- a resumed session: no validation or save yet in it ----
if [ "$rc" -eq 0 ]; then
  timed "$T/resume.log" "$BIN" pretrain --out "$T/run" --resume --time-limit 5s --log-every 5
  ends_by "pretrain --resume --time-limit 5s" 5 "$T/resume.log"
  check "the resumed session's end names this session's training time and the run's" \
    grep -qE "^(finished|time limit reached) .* Trained [0-9]+s in this session, [0-9]+s in total\." \
    "$T/resume.log"
fi

# ---- GED fine-tuning on synthetic data: seconds of setup, one epoch ----
# (from a `tiny` model: a dev evaluation of the small one would take the whole limit)
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --preset tiny --batch-size 4 \
  --seq-len 32 --max-steps 2 --threads 2 --out "$T/tiny" 2>"$T/tiny.log"
if [ $? -ne 0 ]; then
  bad "pretrain --preset tiny --max-steps 2 failed"
else
  timed "$T/ft.log" "$BIN" finetune --task ged --synthetic-from "$T/text.txt" \
    --synthetic-sentences 100000 --synthetic-dev 500 --init "$T/tiny" --threads 2 \
    --epochs 1 --out "$T/ft" --time-limit 10s
  ends_by "finetune --task ged --synthetic-from --time-limit 10s" 10 "$T/ft.log"
  check "the fine-tuning plan says what it keeps for the final evaluation and save" \
    grep -qE "^finetune: time plan: .* [0-9.]+s kept for the final evaluation and save" "$T/ft.log"
  check "no trial-save directory left behind" sh -c "! ls -d '$T'/ft.save-trial* 2>/dev/null"
fi

[ $fails -eq 0 ]
