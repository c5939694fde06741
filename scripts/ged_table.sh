#!/usr/bin/env bash
# Does the pretraining objective matter for GED? (docs/RESULTS.md §1b, "the paper's question"):
# per budget and seed, `tiny` models pretrained for the same CPU time on ../shared/data/corpus
# (one thread each) with replaced-token detection (rtd), BERT-style MLM (mlm) and RTD with
# learner errors among the replaced tokens (learner); a synthetic GED stage of 5 CPU-minutes
# on that last one (synthetic); and a random encoder of the same shape (random). Each start
# is fine-tuned on FCE's whole training file for 2 epochs and scored on FCE dev at its
# calibrated threshold (what /score flags). Writes OUT/table.md: F0.5 per seed, the median,
# and CPU minutes per row. These are long trainings (a measurement, not a test).
#
#   scripts/ged_table.sh [--budgets "20m 60m"] [--seeds "1 2 3"] [--jobs 2]
#                        [--rows "random rtd mlm learner synthetic"] [--out DIR]
#                        [--pretrain-args "--position-embedding relative_key"]
#                        [--synthetic-time 5m] [--report-only]
#
# A finished row (its .eval file) is kept, so a killed run goes on where it stopped when
# started again with the same --out; --report-only prints the table of what OUT holds.
# Defaults: ~14 CPU-hours, about 7 hours on 2 cores.
# Run it on an otherwise idle machine: time-boxed pretraining fits fewer steps on a busy one.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BUILD=${BUILD:-build}
BIN=$ROOT/$BUILD/bin/electra-train
DATA=${DATA:-$ROOT/../shared/data}
OUT=$ROOT/$BUILD/ged_table
BUDGETS="20m 60m"
SEEDS="1 2 3"
ROWS="random rtd mlm learner synthetic"
JOBS=2
EXTRA=""
SYN_TIME=5m
REPORT_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --budgets) BUDGETS=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --pretrain-args) EXTRA=$2; shift 2 ;;
    --synthetic-time) SYN_TIME=$2; shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "ged_table.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for r in $ROWS; do
  case $r in random|rtd|mlm|learner|synthetic) ;;
    *) echo "ged_table.sh: unknown row $r (random rtd mlm learner synthetic)" >&2; exit 2 ;;
  esac
done
[ -x "$BIN" ] || [ "$REPORT_ONLY" = 1 ] || { echo "ged_table.sh: $BIN missing (run make)" >&2; exit 1; }
GED=$DATA/ged/fce-bea19-tokens
[ "$REPORT_ONLY" = 1 ] && [ ! -d "$OUT" ] && { echo "ged_table.sh: nothing at $OUT" >&2; exit 1; }
for f in "$GED/fce_train.txt" "$GED/fce_dev.txt"; do
  [ "$REPORT_ONLY" = 1 ] && break
  [ -f "$f" ] || { echo "ged_table.sh: $f missing (the FCE token files; set DATA=...)" >&2; exit 1; }
done
CORPUS=("$DATA"/corpus/*/*.txt)
[ -f "${CORPUS[0]}" ] || [ "$REPORT_ONLY" = 1 ] || { echo "ged_table.sh: no corpus under $DATA/corpus" >&2; exit 1; }
mkdir -p "$OUT"
has_row() { case " $ROWS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# One vocabulary for every run (the same for every row, so only the objective differs).
VOCAB=$OUT/vocab.txt
if [ "$REPORT_ONLY" = 0 ] && [ ! -s "$VOCAB" ]; then
  "$BIN" vocab --input "${CORPUS[@]}" --vocab-size 8192 --out "$VOCAB" >"$OUT/vocab.log" 2>&1 ||
    { echo "ged_table.sh: vocabulary failed (see $OUT/vocab.log)" >&2; exit 1; }
fi

# timed NAME CMD...: runs CMD under /usr/bin/time, CPU seconds to NAME.cpu, output to NAME.log.
timed() {
  local name=$1; shift
  /usr/bin/time -f '%U %S' -o "$name.cpu" "$@" >"$name.log" 2>&1 ||
    { echo "ged_table.sh: $name failed (see $name.log)" >&2; return 1; }
}

# pretrain RUN OBJECTIVE CORRUPTION BUDGET SEED (skipped when RUN.done says it finished: a
# killed run may have left checkpoints that look complete)
pretrain() {
  [ -f "$1.done" ] && return 0
  rm -rf "$1"
  # shellcheck disable=SC2086 # EXTRA is a list of options
  timed "$1.pre" "$BIN" pretrain --input "${CORPUS[@]}" --vocab "$VOCAB" --out "$1" --preset tiny \
    --objective "$2" --corruption "$3" --time-limit "$4" --threads 1 --seed "$5" \
    --cache "$1.cache.bin" $EXTRA && touch "$1.done"
}

# fce NAME INIT SEED [finetune options]: 2 FCE epochs from INIT, then eval on FCE dev
fce() {
  local name=$1 init=$2 seed=$3; shift 3
  [ -s "$name.eval" ] && return 0
  rm -rf "$name"
  timed "$name.ft" "$BIN" finetune --task ged --train "$GED/fce_train.txt" --dev "$GED/fce_dev.txt" \
    --init "$init" --out "$name" --epochs 2 --threads 1 --seed "$seed" "$@" || return 1
  if ! "$BIN" eval --task ged --data "$GED/fce_dev.txt" --model "$name" >"$name.eval.tmp" \
    2>"$name.eval.log"; then
    echo "ged_table.sh: eval of $name failed (see $name.eval.log)" >&2
    return 1
  fi
  mv "$name.eval.tmp" "$name.eval"
  echo "done $(basename "$name"): $(cat "$name.eval")"
}

# A chain per (row family, budget, seed): pretraining, then the fine-tunings that start from it.
chain_rtd() { # the random row borrows the shape of the first budget's RTD run
  local b=$1 s=$2 run=$OUT/rtd-$1-seed$2 random=0
  has_row random && [ "$b" = "${BUDGETS%% *}" ] && random=1
  if has_row rtd || [ $random = 1 ]; then
    pretrain "$run" electra none "$b" "$s" || return 1
  fi
  if has_row rtd; then fce "$run.fce" "$run/discriminator" "$s" || return 1; fi
  if [ $random = 1 ]; then
    fce "$OUT/random-seed$s.fce" "$run/discriminator" "$s" --random-init
  fi
}
chain_mlm() {
  local run=$OUT/mlm-$1-seed$2
  pretrain "$run" mlm none "$1" "$2" && fce "$run.fce" "$run/mlm" "$2"
}
chain_learner() {
  local s=$2 run=$OUT/learner-$1-seed$2
  pretrain "$run" electra learner:0.1 "$1" "$s" || return 1
  if has_row learner; then fce "$run.fce" "$run/discriminator" "$s" || return 1; fi
  if has_row synthetic; then
    local syn=$OUT/synthetic-$1-seed$s
    if [ ! -f "$syn.syn.done" ]; then
      rm -rf "$syn.syn"
      timed "$syn.syn" "$BIN" finetune --task ged --synthetic-from "${CORPUS[@]}" \
        --init "$run/discriminator" --out "$syn.syn" --epochs 1 --synthetic-sentences 200000 \
        --time-limit "$SYN_TIME" --threads 1 --seed "$s" || return 1
      touch "$syn.syn.done"
    fi
    fce "$syn.fce" "$syn.syn" "$s"
  fi
}

# launch FAMILY BUDGET SEED WIDTH: starts a chain once WIDTH slots are free, so a group of
# WIDTH chains launched together starts together.
launch() {
  while [ "$(jobs -rp | wc -l)" -gt $((JOBS - $4)) ]; do wait -n; done
  { "chain_$1" "$2" "$3" || echo "$1 $2 seed $3" >>"$OUT/failed"; } &
}
# RTD and MLM of a budget and seed start side by side (equal compute: the same time on the
# same machine, whatever else it does then), then the learner chains as slots free.
if [ "$REPORT_ONLY" = 0 ]; then
  rm -f "$OUT/failed"
  for b in $BUDGETS; do
    for s in $SEEDS; do
      want_rtd=0; { has_row rtd || has_row random; } && want_rtd=1
      want_mlm=0; has_row mlm && want_mlm=1
      width=1; [ $((want_rtd + want_mlm)) = 2 ] && [ "$JOBS" -ge 2 ] && width=2
      [ $want_rtd = 1 ] && launch rtd "$b" "$s" "$width"
      [ $want_mlm = 1 ] && launch mlm "$b" "$s" 1
    done
  done
  for b in $BUDGETS; do
    for s in $SEEDS; do
      { has_row learner || has_row synthetic; } && launch learner "$b" "$s" 1
    done
  done
fi
wait

python3 - "$OUT" "$BUDGETS" "$SEEDS" "$ROWS" "$EXTRA" "$SYN_TIME" <<'EOF' | tee "$OUT/table.md"
import json, re, statistics, sys
out, budgets, seeds, rows, extra, syn_time = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split(), sys.argv[5], sys.argv[6]
def cpu(*names):
    """CPU seconds of the steps behind a row (None when a step is missing)."""
    total = 0.0
    for n in names:
        try:
            total += sum(float(x) for x in open(n + ".cpu").read().split()[-2:])
        except (OSError, ValueError):
            return None
    return total
def steps(run):
    try:
        m = re.findall(r"schedule at step (\d+)", open(run + ".pre.log").read())
    except OSError:
        return None
    return m[-1] if m else None
def cell(row, b, s):
    """(F0.5 or None, CPU s or None, pretraining steps or None) of one row, budget, seed."""
    o = f"{out}/{row}"
    if row == "random":
        name, parts, run = f"{o}-seed{s}.fce", [f"{o}-seed{s}.fce.ft"], None
    elif row == "synthetic":
        run = f"{out}/learner-{b}-seed{s}"
        name = f"{o}-{b}-seed{s}.fce"
        parts = [run + ".pre", f"{o}-{b}-seed{s}.syn", name + ".ft"]
    else:
        run = f"{o}-{b}-seed{s}"
        name, parts = run + ".fce", [run + ".pre", run + ".fce.ft"]
    try:
        f = json.load(open(name + ".eval"))["f0.5"]
    except (OSError, ValueError, KeyError):
        f = None
    return f, cpu(*parts), steps(run) if run else None
label = {"random": "random encoder (`--random-init`)", "rtd": "ELECTRA (RTD)",
         "mlm": "BERT-style MLM (`--objective mlm`)", "learner": "RTD + learner errors (`--corruption learner:0.1`)",
         "synthetic": f"+ synthetic GED stage ({syn_time})"}
print(f"`tiny`, one thread per run, pretraining options: `{extra or '(defaults)'}`; FCE fine-tuning 2 epochs;"
      " FCE dev F0.5 at the calibrated threshold\n")
print("| start | budget | " + " | ".join(f"seed {s}" for s in seeds) + " | **median** | CPU min (median) | pretraining steps |")
print("|---|---|" + "---|" * len(seeds) + "---|---|---|")
for row in rows:
    for b in (budgets[:1] if row == "random" else budgets):
        cells = [cell(row, b, s) for s in seeds]
        fs = [c[0] for c in cells if c[0] is not None]
        cs = [c[1] for c in cells if c[1] is not None]
        per_seed = " | ".join("–" if c[0] is None else f"{c[0]:.3f}" for c in cells)
        median = f"**{statistics.median(fs):.3f}** ({len(fs)} seed{'s' if len(fs) > 1 else ''})" if fs else "–"
        minutes = f"{statistics.median(cs) / 60:.1f}" if cs else "–"
        st = "–" if row == "random" else " / ".join(c[2] or "–" for c in cells)
        print(f"| {label[row]} | {'–' if row == 'random' else b} | {per_seed} | {median} | {minutes} | {st} |")
EOF
if [ "$REPORT_ONLY" = 0 ] && [ -s "$OUT/failed" ]; then
  echo "ged_table.sh: failed: $(tr '\n' ';' <"$OUT/failed") (rerun with the same --out to retry)" >&2
  exit 1
fi
