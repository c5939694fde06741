#!/usr/bin/env bash
# End to end: `electra-train pretrain` for a few steps on generated text, then
# `finetune --init RUN` (the run directory resolves to RUN/discriminator) for
# classification and GED, and `eval` of the results. Checks the wiring
# between the trainer's two halves, not scores. ~20 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_ft_pt.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
check() { local name=$1; shift; if "$@"; then echo "ok - $name"; else echo "not ok - $name"; fails=$((fails + 1)); fi; }

[ -x "$BIN" ] || { echo "not ok - $BIN not built"; exit 1; }
if ! "$PY" -c 'import torch' 2>/dev/null; then echo "ok - # SKIP no torch at $PY"; exit 0; fi
# the vocabulary of make_checkpoint.py's tiny models
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/ref" --hidden 32 --layers 1 \
  --heads 1 --intermediate 32 >/dev/null || { echo "not ok - make_checkpoint.py failed"; exit 1; }
python3 - "$T" <<'EOF'
import random, sys
d = sys.argv[1]; r = random.Random(1)
pool = "the cat sat on a mat and then it ran to the house where people live with water".split()
with open(d + "/corpus.txt", "w") as f:
    for doc in range(40):
        for _ in range(6): f.write(" ".join(r.choice(pool) for _ in range(r.randint(5, 12))) + " .\n")
        f.write("\n")
with open(d + "/train.tsv", "w") as f:
    f.write("sentence\tlabel\n")
    for i in range(24): f.write("the cat %s sat\t%d\n" % ("ran" if i % 2 else "live", i % 2))
with open(d + "/ged.txt", "w") as f:
    for i in range(12): f.write("the\tc\ncat\t%s\nsat\tc\n\n" % ("i" if i % 2 else "c"))
EOF
out=$("$BIN" pretrain --input "$T/corpus.txt" --vocab "$T/ref/vocab.txt" --out "$T/run" --preset tiny \
  --max-steps 3 --batch-size 4 --seq-len 32 --val-examples 8 --threads 2 2>&1)
rc=$?
check "pretrain 3 steps (exit $rc)" [ $rc -eq 0 -a -f "$T/run/discriminator/config.json" ]
[ $rc -eq 0 ] || { echo "$out" | tail -5 | sed 's/^/# /'; exit 1; }

FT="$BIN finetune --init $T/run --batch-size 8 --log-every 0 --epochs 1 --max-seq-len 32 --threads 2"
$FT --task sst2 --train "$T/train.tsv" --dev "$T/train.tsv" --out "$T/cls" 2>"$T/cls.log"
check "finetune sst2 from a pretrain RUN directory" [ $? -eq 0 ]
check "the run directory resolves to RUN/discriminator" grep -q "pretrained encoder from $T/run/discriminator" "$T/cls.log"
out=$("$BIN" eval --task sst2 --data "$T/train.tsv" --model "$T/cls")
check "eval prints metrics JSON" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert 0 <= d["accuracy"] <= 1' "$out"
$FT --task ged --train "$T/ged.txt" --dev "$T/ged.txt" --out "$T/ged" 2>/dev/null
check "finetune ged from the pretrained discriminator" [ $? -eq 0 ]
check "ged keeps the pretraining architecture" grep -q '"ElectraForPreTraining"' "$T/ged/config.json"
out=$("$BIN" eval --task ged --data "$T/ged.txt" --model "$T/ged")
check "eval ged prints F0.5" python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert "f0.5" in d' "$out"

# Relative-key positions through the same chain: the option reaches config.json,
# fine-tuning keeps it, and the trainer's dev F0.5 is what the engine's eval
# computes from the saved model (the two forwards agree).
"$BIN" pretrain --input "$T/corpus.txt" --vocab "$T/ref/vocab.txt" --out "$T/rel" --preset tiny \
  --max-steps 3 --batch-size 4 --seq-len 32 --val-examples 8 --threads 2 \
  --position-embedding relative_key >/dev/null 2>&1
check "pretrain --position-embedding relative_key" grep -q '"position_embedding_type":[[:space:]]*"relative_key"' "$T/rel/discriminator/config.json"
out=$("$BIN" pretrain --out "$T/rel" --resume --max-steps 4 --position-embedding absolute 2>&1)
check "resume refuses another --position-embedding" grep -q "differs from the run's relative_key" <<<"$out"
"$BIN" finetune --init "$T/rel" --batch-size 8 --log-every 0 --epochs 1 --max-seq-len 32 --threads 2 \
  --task ged --train "$T/ged.txt" --dev "$T/ged.txt" --out "$T/relged" 2>/dev/null
check "finetune ged keeps relative_key" grep -q '"relative_key"' "$T/relged/config.json"
out=$("$BIN" eval --task ged --data "$T/ged.txt" --model "$T/relged")
check "eval of the relative_key model equals the fine-tuner's dev F0.5" python3 -c '
import json, sys
e = json.loads(sys.argv[1]); f = json.load(open(sys.argv[2]))
f = f.get("dev", f)
assert abs(e["f0.5"] - f["f0.5"]) < 1e-9 and abs(e["threshold"] - f["threshold"]) < 1e-9, (e, f)' "$out" "$T/relged/eval.json"
[ $fails -eq 0 ]
