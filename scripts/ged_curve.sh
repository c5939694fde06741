#!/usr/bin/env bash
# FCE dev F0.5 against CPU time for the GED recipe (docs/RESULTS.md §1b, eighth pass): one
# `electra-train recipe ged` per budget and seed, on ../shared/data/corpus with
# FCE's training file and FCE dev for calibration, one thread each, --jobs at
# once; then `electra-train eval` on FCE dev at each model's saved threshold
# (what /score flags). Writes OUT/curve.md: a row per run and the median of
# each budget. These are long trainings (a measurement, not a test).
#
#   scripts/ged_curve.sh [--budgets "10m 60m"] [--seeds "1 2 3"] [--jobs 2]
#                        [--out DIR] [--recipe-args "--position-embedding absolute ..."]
#
# Defaults: budgets 10m and 60m, seeds 1 2 3, 2 jobs: 3.5 CPU-hours of recipes
# (plus evals), about 1.8 hours on 2 cores. Run it on an otherwise idle machine: a
# time-boxed recipe fits fewer steps on a busy one.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${BUILD:-build}
BIN=$ROOT/$BUILD/bin/electra-train
DATA=${DATA:-$ROOT/../shared/data}
OUT=$ROOT/$BUILD/ged_curve
BUDGETS="10m 60m"
SEEDS="1 2 3"
JOBS=2
EXTRA=""
while [ $# -gt 0 ]; do
  case $1 in
    --budgets) BUDGETS=$2; shift 2 ;;
    --seeds) SEEDS=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --recipe-args) EXTRA=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "ged_curve.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -x "$BIN" ] || { echo "ged_curve.sh: $BIN missing (run make)" >&2; exit 1; }
GED=$DATA/ged/fce-bea19-tokens
for f in "$GED/fce_train.txt" "$GED/fce_dev.txt"; do
  [ -f "$f" ] || { echo "ged_curve.sh: $f missing (the FCE token files; set DATA=...)" >&2; exit 1; }
done
CORPUS=("$DATA"/corpus/*/*.txt)
[ -f "${CORPUS[0]}" ] || { echo "ged_curve.sh: no corpus under $DATA/corpus" >&2; exit 1; }
mkdir -p "$OUT"

# One run: the recipe under /usr/bin/time (CPU seconds), then eval on FCE dev.
run_one() {
  local budget=$1 seed=$2 dir=$OUT/$1-seed$2
  rm -rf "$dir" "$dir.work"
  # shellcheck disable=SC2086 # EXTRA is a list of options
  /usr/bin/time -f '%U %S' -o "$dir.cpu" "$BIN" recipe ged --out "$dir" --corpus "${CORPUS[@]}" \
    --train "$GED/fce_train.txt" --dev "$GED/fce_dev.txt" --time-limit "$budget" --threads 1 \
    --seed "$seed" $EXTRA >"$dir.log" 2>&1 || { echo "ged_curve.sh: $dir failed (see $dir.log)" >&2; return 1; }
  "$BIN" eval --task ged --data "$GED/fce_dev.txt" --model "$dir" >"$dir.eval" 2>"$dir.eval.log" ||
    { echo "ged_curve.sh: eval of $dir failed (see $dir.eval.log)" >&2; return 1; }
  echo "done $budget seed $seed: $(cat "$dir.eval")"
}

for b in $BUDGETS; do
  for s in $SEEDS; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run_one "$b" "$s" &
  done
done
wait

python3 - "$OUT" "$BUDGETS" "$SEEDS" "$EXTRA" <<'EOF' | tee "$OUT/curve.md"
import json, re, statistics, sys
out, budgets, seeds, extra = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4]
print(f"`electra-train recipe ged --corpus CORPUS --train fce_train.txt --dev fce_dev.txt "
      f"--threads 1 --time-limit B --seed S {extra}`, then `eval` on fce_dev.txt\n")
print("| budget | seed | CPU s | pretraining steps | FCE dev F0.5 | P / R | threshold |")
print("|---|---|---|---|---|---|---|")
med = {}
for b in budgets:
    for s in seeds:
        d = f"{out}/{b}-seed{s}"
        try:
            ev = json.load(open(d + ".eval"))
            cpu = sum(float(x) for x in open(d + ".cpu").read().split()[-2:])
        except (OSError, ValueError):
            print(f"| {b} | {s} | – | – | failed | – | – |")
            continue
        steps = re.findall(r"schedule at step (\d+)", open(d + ".log").read())
        print(f"| {b} | {s} | {cpu:.0f} | {steps[0] if steps else '?'} | {ev['f0.5']:.3f} | "
              f"{ev['precision']:.3f} / {ev['recall']:.3f} | {ev['threshold']:.2f} |")
        med.setdefault(b, []).append(ev["f0.5"])
print()
for b, v in med.items():
    print(f"- {b}: median F0.5 {statistics.median(v):.3f} over {len(v)} seed(s)")
EOF
