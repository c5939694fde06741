#!/usr/bin/env bash
# scripts/ged_table.sh end to end on a tiny stand-in for ../shared/data: WordNet glosses as the
# corpus and GED files made by `electra-train corrupt`, 5-second budgets. Checks that every row
# (random, RTD, MLM, learner errors, synthetic stage) is trained, fine-tuned and scored, that the
# table carries a number per row, that a second run keeps finished rows instead of retraining,
# and that bad options and missing data are refused. The numbers themselves mean nothing at
# this size. Runtime: ~40 s on 2 cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BIN=$BUILD/bin/electra-train
GLOSSES=/usr/share/wordnet/data.verb
[ -x "$BIN" ] || { echo "not ok - $BIN is missing (run make)"; exit 1; }
# A fresh Debian 12 lacked /usr/bin/time (package time): make test failed here.
if grep -q /usr/bin/time scripts/ged_table.sh; then
  if grep -E '^test_pkgs=.*[" ]time[" ]' deploy/install-deps.sh >/dev/null; then
    echo "ok - deploy/install-deps.sh installs time (/usr/bin/time of scripts/ged_table.sh)"
  else
    echo "not ok - scripts/ged_table.sh uses /usr/bin/time; deploy/install-deps.sh lacks package time"
  fi
fi
if [ ! -f "$GLOSSES" ]; then
  echo "ok - # SKIP no $GLOSSES (Debian wordnet-base): no corpus for the table"
  exit 0
fi
T=$(mktemp -d /tmp/el_ged_table.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh

# The stand-in data: glosses of three or more words, one per line.
D=$T/data
mkdir -p "$D/corpus/wordnet" "$D/ged/fce-bea19-tokens"
grep '^[0-9]' "$GLOSSES" | sed 's/.* | //; s/"//g; s/; /\n/g' | awk 'NF >= 3' | head -3000 \
  >"$D/corpus/wordnet/glosses.txt"
head -400 "$D/corpus/wordnet/glosses.txt" >"$T/train.txt"
sed -n 401,520p "$D/corpus/wordnet/glosses.txt" >"$T/dev.txt"
"$BIN" corrupt --input "$T/train.txt" --seed 1 >"$D/ged/fce-bea19-tokens/fce_train.txt" 2>/dev/null
"$BIN" corrupt --input "$T/dev.txt" --seed 2 >"$D/ged/fce-bea19-tokens/fce_dev.txt" 2>/dev/null
check "stand-in GED files written" test -s "$D/ged/fce-bea19-tokens/fce_dev.txt"

table() {
  DATA=$D BUILD=$BUILD scripts/ged_table.sh --budgets 5s --seeds 1 --out "$T/out" --synthetic-time 5s
}
table >"$T/run1.log" 2>&1
rc=$?
sed 's/^/# /' "$T/out/table.md" 2>/dev/null
check "first run exits 0" test "$rc" = 0
for row in "random encoder" "ELECTRA \(RTD\)" "BERT-style MLM" "RTD \+ learner errors" "\+ synthetic GED stage"; do
  check "table row '$row' has an F0.5" grep -qE "^\| $row.*\*\*0\.[0-9]{3}\*\* \(1 seed\)" "$T/out/table.md"
done
check "RTD and MLM runs are time-planned pretrainings" \
  grep -q "finished the time-planned schedule" "$T/out/rtd-5s-seed1.pre.log" "$T/out/mlm-5s-seed1.pre.log"
check "the MLM row is fine-tuned from the MLM encoder" grep -q "mlm-5s-seed1/mlm" "$T/out/mlm-5s-seed1.fce.ft.log"
check "the random row keeps a random encoder" grep -q "random encoder from" "$T/out/random-seed1.fce.ft.log"
check "the synthetic row starts from the synthetic stage" grep -q "pretrained encoder from $T/out/synthetic-5s-seed1.syn" \
  "$T/out/synthetic-5s-seed1.fce.ft.log"

before=$(stat -c %Y "$T"/out/*.eval | sort | tr '\n' ' ')
start=$(date +%s)
table >"$T/run2.log" 2>&1
rc=$?
after=$(stat -c %Y "$T"/out/*.eval | sort | tr '\n' ' ')
check "second run exits 0" test "$rc" = 0
check "second run keeps every finished row (no .eval rewritten)" test "$before" = "$after"
check "second run trains nothing (< 20 s)" test $(($(date +%s) - start)) -lt 20
check "second run prints the same table" grep -q "RTD + learner errors" "$T/run2.log"
scripts/ged_table.sh --report-only --budgets 5s --seeds 1 --out "$T/out" >"$T/report.log" 2>&1
check "--report-only prints the table of what OUT holds" diff -q "$T/report.log" "$T/out/table.md"
scripts/ged_table.sh --report-only --out "$T/nowhere" >"$T/bad.log" 2>&1
check "--report-only without results is refused with exit 1" test $? = 1

DATA=$D BUILD=$BUILD scripts/ged_table.sh --budgets 5s --seeds 1 --rows rtd --out "$T/fail" \
  --pretrain-args --no-such-option >"$T/fail.log" 2>&1
check "a failed pretraining makes the run exit 1, naming the row" \
  test $? = 1 -a -n "$(grep 'failed: rtd 5s seed 1' "$T/fail.log")"
check "a killed or failed pretraining is not taken as finished" test ! -e "$T/fail/rtd-5s-seed1.done"
scripts/ged_table.sh --rows "rtd bogus" >"$T/bad.log" 2>&1
check "an unknown row is refused with exit 2, naming it" test $? = 2 -a -n "$(grep 'unknown row bogus' "$T/bad.log")"
scripts/ged_table.sh --frobnicate >"$T/bad.log" 2>&1
check "an unknown option is refused with exit 2" test $? = 2
DATA=$T/nothing scripts/ged_table.sh --out "$T/none" >"$T/bad.log" 2>&1
check "missing FCE files are refused with exit 1, naming the file" \
  test $? = 1 -a -n "$(grep 'fce_train.txt missing' "$T/bad.log")"

[ "$fails" = 0 ] || { sed 's/^/# /' "$T/run1.log" | tail -20; exit 1; }
