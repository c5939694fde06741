#!/usr/bin/env bash
# electra-train's papercuts (issue 40): every command in --help and in the
# usage after a mistyped one, did-you-mean for commands and --task (as for
# options), finetune refusing an --out that holds a model unless --overwrite,
# a TSV row with an extra column reported with file and line, STS-B's
# metric/score, singular counts, 4-decimal dev metrics, and a failed pretrain
# removing what it made (not what was there), recipe refusing earlier output
# before any work, --precision's choices and refusal. Runtime: ~15 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_train_cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

# ---- the command list ----
help=$("$BIN" --help)
for c in $(sed -n 's/.*if (!strcmp(cmd, "\([a-z]*\)")).*/\1/p' train/cmd/main.c); do
  check "--help lists the command $c" grep -q "^  $c " <<<"$help"
done
"$BIN" bogus >/dev/null 2>"$T/err"
check "a command unlike any: exit 2, the command list follows" \
  eval "[ $? -eq 2 ] && grep -q '^  recipe ' '$T/err'"
"$BIN" pretrian 2>"$T/err"
rc=$?
check "pretrian: exit 2, did you mean pretrain? ($(head -1 "$T/err"))" \
  eval "[ $rc -eq 2 ] && grep -q \"unknown command 'pretrian' (did you mean pretrain?)\" '$T/err'"
"$BIN" eval --task sst-2 --data x --model y 2>"$T/err"
rc=$?
check "eval --task sst-2: exit 2, did you mean sst2? ($(head -1 "$T/err"))" \
  eval "[ $rc -eq 2 ] && grep -q \"unknown --task 'sst-2' (did you mean sst2?\" '$T/err'"
"$BIN" finetune --task glu --train x --dev x --init x --out x 2>"$T/err"
check "finetune --task glu (nothing near): the task list, no guess" \
  eval "grep -q \"unknown --task 'glu' (one of: cola\" '$T/err'"

# ---- finetune on a tiny model ----
# ---- recipe refuses earlier output before any work (run with or without torch) ----
recipe_refusals() {
  mkdir -p "$T/rcp" && echo '{}' >"$T/rcp/config.json"
  t0=$(date +%s)
  "$BIN" recipe ged --out "$T/rcp" --corpus "$T/fail3/cache/mine" --time-limit 1h 2>"$T/err"
  rc=$?
  check "recipe into a DIR holding a model: exit 1 at once, naming it and --overwrite" \
    eval "[ $rc -eq 1 ] && [ \$((\$(date +%s) - t0)) -lt 5 ] && grep -q 'rcp already exists (a model): remove it or pass --overwrite' '$T/err'"
  rm "$T/rcp/config.json" && mkdir -p "$T/rcp.work"
  "$BIN" recipe ged --out "$T/rcp" --corpus "$T/fail3/cache/mine" --time-limit 1h 2>"$T/err"
  check "... and into an existing DIR.work" eval "[ $? -eq 1 ] && grep -q \"rcp.work already exists (an earlier recipe's stages)\" '$T/err'"
  ELECTRA_BF16=off "$BIN" recipe ged --out "$T/rcp16" --corpus "$T/fail3/cache/mine" --time-limit 1h --precision bf16 2>"$T/err"
  check "recipe --precision bf16 where it cannot run: exit 2 before any work" \
    eval "[ $? -eq 2 ] && [ ! -e '$T/rcp16.work' ] && grep -q 'precision bf16: this CPU' '$T/err'"
}

if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "no torch at $PY: cannot make the tiny checkpoint"; 
recipe_refusals
exit $((fails > 0))
fi
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/tiny" --hidden 32 \
  --layers 2 --heads 2 --intermediate 64 --max-position 64 --seed 1 >/dev/null ||
  { bad "make_checkpoint.py failed"; exit 1; }
{
  printf 'sentence\tlabel\n'
  for i in $(seq 1 24); do printf 'that with they have %s\t%d\n' "$([ $((i % 2)) = 1 ] && echo good)" $((i % 2)); done
} >"$T/train.tsv"
cp "$T/train.tsv" "$T/dev.tsv"
FT=("$BIN" finetune --task sst2 --init "$T/tiny" --epochs 1 --batch-size 8 --threads 1 --log-every 0)
"${FT[@]}" --train "$T/train.tsv" --dev "$T/dev.tsv" --out "$T/m" 2>"$T/log1"
check "finetune into a new --out: exit 0" test $? -eq 0
"${FT[@]}" --train "$T/train.tsv" --dev "$T/dev.tsv" --out "$T/m" 2>"$T/err"
rc=$?
check "finetune into an --out holding a model: refused, --overwrite named ($(tail -1 "$T/err"))" \
  eval "[ $rc -ne 0 ] && grep -q 'already holds a model.*--overwrite' '$T/err'"
"${FT[@]}" --train "$T/train.tsv" --dev "$T/dev.tsv" --out "$T/m" --overwrite 2>"$T/err"
check "... and replaced with --overwrite" test $? -eq 0
check "finetune --help names --overwrite" eval "'$BIN' finetune --help | grep -q -- '--overwrite'"

# a row with an extra column (a tab in the text) is skipped and reported
awk 'NR == 5 { $0 = "that with\tthey have good\t1" } 1' "$T/train.tsv" >"$T/extra.tsv"
"${FT[@]}" --train "$T/extra.tsv" --dev "$T/dev.tsv" --out "$T/m2" 2>"$T/err"
check "an extra column is reported with file:line ($(grep -o 'skipped.*' "$T/err" | head -1))" \
  eval "grep -q 'skipped 1 row(s); first: $T/extra.tsv:5: 3 columns, more than the 2 of line 1' '$T/err'"

# STS-B's dev JSON names its metric and score like the other tasks; log lines
# count in the singular when it is 1 and give dev metrics to 4 decimals
{
  printf 'index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n'
  for i in $(seq 1 24); do printf '%d\tg\tf\ty\t0\tn\tn\tthat with %s\tthey have\t%d\n' "$i" \
    "$([ $((i % 2)) = 1 ] && echo good)" $((i % 2 * 5)); done
} >"$T/sts.tsv"
"$BIN" finetune --task stsb --init "$T/tiny" --epochs 1 --batch-size 8 --threads 1 --log-every 0 \
  --train "$T/sts.tsv" --dev "$T/sts.tsv" --out "$T/sts" 2>"$T/sts.log"
check "stsb eval.json dev has metric spearman and its score" \
  "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))["dev"]
sys.exit(0 if d["metric"] == "spearman" and d["score"] == d["spearman"] else 1)' "$T/sts/eval.json"
check "finetune log: '1 epoch x 3 steps' ($(grep -o '[0-9]* epochs\? x [0-9]* steps\?' "$T/sts.log"))" \
  grep -q ' 1 epoch x 3 steps,' "$T/sts.log"
long=$(grep -oE '[0-9]\.[0-9]{5,}' <(grep '^epoch 1:' "$T/sts.log") | head -3)
check "dev metrics in the log to 4 decimals at most${long:+ (got $long)}" test -z "$long"
"$BIN" vocab --input "$T/train.tsv" --vocab-size 40 --out "$T/vocab.txt" 2>/dev/null
# --word-counts: the words counted twice or more, most frequent first; alone it writes the counts only
printf 'The cat sat.\nthe cat ran.\nthe dog.\n' >"$T/wc.txt"
"$BIN" vocab --input "$T/wc.txt" --word-counts "$T/counts.txt" 2>/dev/null
check "vocab --word-counts alone: the counts, most frequent first (ties by bytes), twice or more ($(tr '\t\n' ': ' <"$T/counts.txt"))" \
  eval "[ \"\$(tr '\t\n' ': ' <'$T/counts.txt')\" = '.:3 the:3 cat:2 ' ]"
"$BIN" vocab --input "$T/wc.txt" --out "$T/v2.txt" 2>"$T/err"
check "vocab --out without --vocab-size or --word-counts: exit 2 saying what is required" \
  eval "[ $? -eq 2 ] && grep -q 'are required' '$T/err'"
"$BIN" pretrain --input "$T/train.tsv" --vocab "$T/vocab.txt" --max-steps 1 --batch-size 2 \
  --seq-len 16 --threads 1 --out "$T/pre" 2>"$T/pre.log"
check "pretrain log: '1 thread,' ($(grep -o '[0-9]* threads\?,' "$T/pre.log"))" grep -q ' 1 thread,' "$T/pre.log"

# --precision: auto is bf16 exactly where the CPU has AVX512_BF16; bf16 asked
# for where it cannot run is refused before any work, naming the way out
PRE=(--input "$T/train.tsv" --vocab "$T/vocab.txt" --max-steps 1 --batch-size 2 --seq-len 16 --threads 1)
want=fp32
grep -qw avx512_bf16 /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && grep -qw avx512vl /proc/cpuinfo && want=bf16
check "pretrain --precision auto (the default): products in $want on this CPU" \
  grep -q " products in $want," "$T/pre.log"
"$BIN" pretrain "${PRE[@]}" --precision fp32 --out "$T/pre32" 2>"$T/pre32.log"
check "pretrain --precision fp32: exit 0, products in fp32" \
  eval "[ $? -eq 0 ] && grep -q ' products in fp32,' '$T/pre32.log'"
ELECTRA_BF16=off "$BIN" pretrain "${PRE[@]}" --precision bf16 --out "$T/pre16" 2>"$T/err"
rc=$?
check "pretrain --precision bf16 where it cannot run (ELECTRA_BF16=off): exit 2, nothing made ($(head -1 "$T/err"))" \
  eval "[ $rc -eq 2 ] && [ ! -e '$T/pre16' ] && grep -q 'precision bf16: this CPU has no AVX512_BF16.*use --precision fp32 or auto' '$T/err'"
ELECTRA_BF16=off "${FT[@]}" --train "$T/train.tsv" --dev "$T/dev.tsv" --out "$T/m16" --precision bf16 2>"$T/err"
check "finetune --precision bf16 likewise: exit 2" eval "[ $? -eq 2 ] && [ ! -e '$T/m16' ]"
ELECTRA_BF16=off "${FT[@]}" --train "$T/train.tsv" --dev "$T/dev.tsv" --out "$T/m32" 2>"$T/m32.log"
check "finetune --precision auto without bf16: exit 0, products in fp32" \
  eval "[ $? -eq 0 ] && grep -q 'products in fp32' '$T/m32.log'"
"$BIN" pretrain "${PRE[@]}" --precision fp16 --out "$T/pre17" 2>"$T/err"
check "pretrain --precision fp16: exit 2, the choices named" \
  eval "[ $? -eq 2 ] && grep -q 'auto|fp32|bf16' '$T/err'"

# a failed run takes away what it made, and only that
: >"$T/empty.txt"
P=(--input "$T/empty.txt" --vocab "$T/vocab.txt" --max-steps 1 --threads 1)
"$BIN" pretrain "${P[@]}" --out "$T/fail1" 2>/dev/null
check "a failed pretrain removes the run directory it made" test ! -e "$T/fail1"
mkdir -p "$T/fail2"
"$BIN" pretrain "${P[@]}" --out "$T/fail2" 2>/dev/null
check "... leaves an --out that existed, without the cache/ it made" \
  eval "[ -d '$T/fail2' ] && [ ! -e '$T/fail2/cache' ]"
mkdir -p "$T/fail3/cache" && echo keep >"$T/fail3/cache/mine"
"$BIN" pretrain "${P[@]}" --out "$T/fail3" 2>/dev/null
check "... and a cache/ that existed" test -f "$T/fail3/cache/mine"

recipe_refusals
exit $((fails > 0))
