#!/usr/bin/env bash
# Output locations of electra-train (issue 16): vocab, pretrain and finetune create
# missing parent directories like `mkdir -p`, and an output that cannot be made fails
# at once, naming the path, before any input is read or any step trained.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_out_e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

for i in $(seq 400); do
  echo "The cat number $i sat on the mat and looked at the birds in the garden."
  echo "A dog ran across the road while the children were playing with a ball."
  echo
done >"$T/corpus.txt"
"$BIN" vocab --input "$T/corpus.txt" --vocab-size 120 --out "$T/new/dirs/vocab.txt" >/dev/null 2>&1
check "vocab --out under missing directories: created" [ -s "$T/new/dirs/vocab.txt" ]
"$BIN" pretrain --input "$T/corpus.txt" --vocab "$T/new/dirs/vocab.txt" --out "$T/runs/a/small" \
  --preset tiny --max-steps 2 --batch-size 2 --seq-len 32 --threads 1 >/dev/null 2>&1
check "pretrain --out under missing directories: run saved" [ -f "$T/runs/a/small/discriminator/config.json" ]
awk '{ for (i = 1; i <= NF; i++) print $i, (i == 3 ? "i" : "c"); print "" }' "$T/corpus.txt" | head -600 >"$T/ged.txt"
"$BIN" finetune --task ged --train "$T/ged.txt" --dev "$T/ged.txt" --init "$T/runs/a/small" \
  --out "$T/models/x/ged" --epochs 1 --threads 1 >/dev/null 2>&1
check "finetune --out under missing directories: model saved" [ -f "$T/models/x/ged/config.json" ]

touch "$T/afile"
t0=$(date +%s%N)
msg=$("$BIN" vocab --input "$T/corpus.txt" --vocab-size 120 --out "$T/afile/v.txt" 2>&1); rc=$?
check "vocab: an --out that cannot be made is exit 1 naming it ($msg)" \
  [ $rc -eq 1 -a -n "$(grep -o "$T/afile" <<<"$msg")" ]
msg=$("$BIN" finetune --task ged --train "$T/ged.txt" --dev "$T/ged.txt" --init "$T/runs/a/small" \
  --out "$T/afile/m" --epochs 1 --threads 1 2>&1); rc=$?
check "finetune: an --out that cannot be made fails before training ($msg)" \
  [ $rc -eq 1 -a -n "$(grep -o "cannot create $T/afile" <<<"$msg")" -a -z "$(grep -o 'epoch 1' <<<"$msg")" ]
msg=$("$BIN" pretrain --input "$T/corpus.txt" --vocab "$T/new/dirs/vocab.txt" --out "$T/afile/run" \
  --preset tiny --max-steps 2 --threads 1 2>&1); rc=$?
check "pretrain: an --out that cannot be made is exit 1 naming it" \
  [ $rc -eq 1 -a -n "$(grep -o "$T/afile" <<<"$msg")" ]
echo "# $fails failed"
[ $fails -eq 0 ]
