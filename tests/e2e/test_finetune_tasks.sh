#!/usr/bin/env bash
# End to end: `electra-train finetune` and `eval` on tiny generated data with
# a random 2-layer model (tests/reference/make_checkpoint.py) for
# classification, regression, GED, SQuAD and SQuAD 2.0; output architecture,
# the engine's eval of the saved model against the trainer's dev numbers,
# config fields, eval JSON, learning (each synthetic task has a one-word cue,
# so a working trainer reaches the stated scores), determinism, and the
# documented errors for bad input. Real-data smoke runs SKIP without
# /work/shared/data. Runtime: ~1 minute on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_ft_e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
not() { ! "$@"; }
quiet() { "$@" >/dev/null; }

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }
if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "no torch at $PY: cannot make the tiny checkpoint"; exit 0
fi
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/tiny" --hidden 32 \
  --layers 2 --heads 2 --intermediate 64 --max-position 128 --seed 1 >/dev/null ||
  { bad "make_checkpoint.py failed"; exit 1; }

# ---- synthetic data: the words come from make_checkpoint's built-in vocab ----
python3 - "$T" <<'EOF'
import json, random, sys
d = sys.argv[1]; r = random.Random(0)
pool = ("that with they have this from word what some other were there when your said each "
        "which their time will about many then them write would like these long make look more "
        "could come number sound most people over know than call first down side been find work "
        "part take place made live where after back little only round year came show every").split()
def sent(n): return [r.choice(pool) for _ in range(n)]
def cls(path, n):  # SST-2 layout; label 1 iff the sentence has "good"
    with open(path, "w") as f:
        f.write("sentence\tlabel\n")
        for i in range(n):
            s = sent(r.randint(4, 8))
            if i % 2: s.insert(r.randrange(len(s) + 1), "good")
            f.write(" ".join(s) + " \t%d\n" % (i % 2))
def sts(path, n):  # STS-B layout; score = 5/3 x number of "good" in sentence1
    with open(path, "w") as f:
        f.write("index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n")
        for i in range(n):
            k = i % 4; a = sent(5)
            for _ in range(k): a.insert(r.randrange(len(a) + 1), "good")
            f.write("%d\tg\tf\ty\t0\tn\tn\t%s\t%s\t%.3f\n" % (i, " ".join(a), " ".join(sent(5)), k * 5 / 3))
def ged(path, n, nl, sep):  # "thing" is the error
    with open(path, "w", newline="") as f:
        for i in range(n):
            s = sent(r.randint(4, 9))
            if i % 2: s.insert(r.randrange(len(s) + 1), "thing")
            for w in s: f.write("%s%s%s%s" % (w, sep, "i" if w == "thing" else "c", nl))
            f.write(nl)
def squad(path, n, v2):  # the answer is "good"; v2: every third question has none
    data = []
    for i in range(n):
        s = sent(r.randint(8, 30)); imp = v2 and i % 3 == 0
        pos = None
        if not imp:
            pos = r.randrange(len(s) + 1); s.insert(pos, "good")
        ctx = " ".join(s)
        qa = {"id": "q%d" % i, "question": "what is good", "answers": []}
        if imp: qa["is_impossible"] = True
        else:
            st = len(" ".join(s[:pos])) + (1 if pos else 0)
            assert ctx[st:st + 4] == "good"
            qa["answers"] = [{"text": "good", "answer_start": st}]
        data.append({"title": "t", "paragraphs": [{"context": ctx, "qas": [qa]}]})
    json.dump({"version": "v2.0" if v2 else "1.1", "data": data}, open(path, "w"))
cls(d + "/sst_train.tsv", 64); cls(d + "/sst_dev.tsv", 32)
sts(d + "/sts_train.tsv", 64); sts(d + "/sts_dev.tsv", 32)
ged(d + "/ged_train.tsv", 64, "\n", "\t"); ged(d + "/ged_dev.txt", 32, "\r\n", " ")
squad(d + "/sq_train.json", 64, False); squad(d + "/sq_dev.json", 32, False)
squad(d + "/sq2_train.json", 64, True); squad(d + "/sq2_dev.json", 32, True)
EOF

FT0="$BIN finetune --init $T/tiny --batch-size 8 --lr 3e-3 --layer-decay 1"
FT="$FT0 --log-every 0 --threads 2"
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])) if sys.argv[1]!="-" else json.loads(sys.stdin.read()); 
for k in sys.argv[2].split("/"): d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$@"; }
arch() { json_get "$1/config.json" architectures/0; }
ge() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"; }

# ---- classification ----
$FT --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/sst --epochs 15 2>$T/sst.log
check "finetune sst2 exits 0" [ $? -eq 0 ]
check "sst2 output is ElectraForSequenceClassification" [ "$(arch $T/sst)" = ElectraForSequenceClassification ]
check "sst2 id2label: HF's GLUE names in the GLUE order (0 negative, 1 positive)" \
  [ "$(json_get $T/sst/config.json id2label/0)" = negative -a "$(json_get $T/sst/config.json id2label/1)" = positive ]
check "eval.json is valid JSON with the best epoch" quiet json_get $T/sst/eval.json best_epoch
out=$($BIN eval --task sst2 --data $T/sst_dev.tsv --model $T/sst --out $T/sst_pred.tsv)
check "eval sst2 prints JSON" quiet json_get - accuracy <<<"$out"
acc=$(json_get - accuracy <<<"$out")
check "sst2 learns the cue word (dev accuracy $acc >= 0.9)" ge "$acc" 0.9
check "eval matches eval.json's best dev score" \
  [ "$(json_get - score <<<"$out")" = "$(json_get $T/sst/eval.json dev/score)" ]
check "predictions file has a header and 32 rows" [ "$(wc -l <$T/sst_pred.tsv)" -eq 33 ]
grep -q '^step .* loss .* lr .* ex/s' <($FT0 --threads 2 --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv \
  --out $T/sst_log --epochs 1 --log-every 2 2>&1)
check "progress lines show loss, LR and examples/s" [ $? -eq 0 ]

# generic TSV with --labels: the given order and names, not the sorted ones
python3 - "$T" <<'EOF2'
import sys
d = sys.argv[1]
for name in ("sst_train", "sst_dev"):
    rows = open("%s/%s.tsv" % (d, name)).read().splitlines()[1:]
    with open("%s/gen_%s.tsv" % (d, name), "w") as f:
        f.write("label\ttext\n")
        for r in rows:
            s, l = r.rsplit("\t", 1)
            f.write("%s\t%s\n" % ("pos" if l == "1" else "neg", s))
EOF2
$FT --task tsv --labels pos,neg --train $T/gen_sst_train.tsv --dev $T/gen_sst_dev.tsv --out $T/gen \
  --epochs 15 2>$T/gen.log
check "finetune tsv --labels pos,neg exits 0" [ $? -eq 0 ]
check "tsv --labels: id2label in the given order (0 pos, 1 neg; sorted would be neg, pos)" \
  [ "$(json_get $T/gen/config.json id2label/0)" = pos -a "$(json_get $T/gen/config.json id2label/1)" = neg ]
out=$($BIN eval --task tsv --data $T/gen_sst_dev.tsv --model $T/gen)
acc=$(json_get - accuracy <<<"$out")
check "tsv --labels: eval reads the file by those names and the model learned (accuracy $acc >= 0.9)" ge "$acc" 0.9
msg=$($FT --task tsv --labels pos,other --train $T/gen_sst_train.tsv --dev $T/gen_sst_dev.tsv --out $T/x 2>&1); rc=$?
check "tsv --labels: a training label not in the list is an error naming file:line" \
  [ $rc -eq 1 -a -n "$(grep -o "gen_sst_train.tsv:[0-9]*: unknown label 'neg'" <<<"$msg")" ]
for bad in "pos" "pos,,neg" "pos,neg,pos"; do
  msg=$($FT --task tsv --labels "$bad" --train $T/gen_sst_train.tsv --dev $T/gen_sst_dev.tsv --out $T/x 2>&1); rc=$?
  check "--labels '$bad' refused before training (exit 2: $msg)" [ $rc -eq 2 -a ! -e $T/x ]
done
msg=$($FT --task sst2 --labels a,b --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/x 2>&1); rc=$?
check "--labels with a GLUE task is refused (its labels are fixed)" [ $rc -eq 2 -a -n "$(grep -o 'task tsv' <<<"$msg")" ]
msg=$($FT --task sst2 --joined 0.2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/x 2>&1); rc=$?
check "--joined with a classification task is refused (exit 2: $msg)" [ $rc -eq 2 -a ! -e $T/x -a -n "$(grep -o 'task ged' <<<"$msg")" ]

# determinism: same seed and --threads -> same weights (another thread count
# changes the model copies and so the order of float sums: test_train_copies.sh)
$FT --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/sstA --epochs 2 --seed 7 2>/dev/null
$FT --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/sstB --epochs 2 --seed 7 2>/dev/null
$FT --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/sstC --epochs 2 --seed 8 2>/dev/null
check "same seed gives identical weights (threads 2, twice)" cmp -s $T/sstA/model.safetensors $T/sstB/model.safetensors
check "another seed gives other weights" not cmp -s $T/sstA/model.safetensors $T/sstC/model.safetensors
# a quote and a backslash in --train: eval.json (cJSON) stays valid and names the file
qtrain="$T/sst \"q\" \\ train.tsv"
cp $T/sst_train.tsv "$qtrain"
$FT --task sst2 --train "$qtrain" --dev $T/sst_dev.tsv --out $T/sstR --epochs 1 --random-init 2>/dev/null
check "--random-init trains and records it" [ "$(json_get $T/sstR/eval.json random_init)" = True ]
check "eval.json is valid JSON with a quote and a backslash in --train, and names that file" \
  [ "$(json_get $T/sstR/eval.json train)" = "$qtrain" ]

# ---- regression ----
$FT --task stsb --train $T/sts_train.tsv --dev $T/sts_dev.tsv --out $T/sts --epochs 15 2>/dev/null
check "finetune stsb exits 0" [ $? -eq 0 ]
check "stsb config has problem_type regression" [ "$(json_get $T/sts/config.json problem_type)" = regression ]
check "stsb has one output" [ "$(json_get $T/sts/config.json id2label | tr -cd ':' | wc -c)" -eq 1 ]
out=$($BIN eval --task stsb --data $T/sts_dev.tsv --model $T/sts)
sp=$(json_get - spearman <<<"$out")
check "stsb learns (dev spearman $sp >= 0.8)" ge "$sp" 0.8
near() { python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) <= 1e-4 else 1)' "$1" "$2"; }
pe=$(json_get - pearson <<<"$out"); pe_train=$(json_get $T/sts/eval.json dev/pearson)
check "engine eval of the saved model = trainer's dev eval (pearson $pe vs $pe_train, 1e-4)" near "$pe" "$pe_train"
# --average-weights: dev and the checkpoint read the weights' moving average, so the saved
# model is the one dev scored, and it is not the last step's
$FT --task stsb --train $T/sts_train.tsv --dev $T/sts_dev.tsv --out $T/sts_avg --epochs 15 \
  --average-weights 0.99 2>$T/sts_avg.log
check "finetune --average-weights exits 0 and says so" grep -q "moving average (decay 0.99)" $T/sts_avg.log
out=$($BIN eval --task stsb --data $T/sts_dev.tsv --model $T/sts_avg)
pa=$(json_get - pearson <<<"$out"); pa_train=$(json_get $T/sts_avg/eval.json dev/pearson)
check "averaged: engine eval of the saved model = trainer's dev eval (pearson $pa vs $pa_train)" \
  near "$pa" "$pa_train"
check "averaged: still learns (spearman $(json_get - spearman <<<"$out") >= 0.8)" \
  ge "$(json_get - spearman <<<"$out")" 0.8
check "averaged: eval.json records the decay" [ "$(json_get $T/sts_avg/eval.json average_weights)" = 0.99 ]
same=$(cmp -s $T/sts/model.safetensors $T/sts_avg/model.safetensors && echo same || echo differ)
check "averaged: other weights than the same run's last-step ones ($same)" [ "$same" = differ ]
msg=$($FT --task stsb --train $T/sts_train.tsv --dev $T/sts_dev.tsv --out $T/x --average-weights 1 2>&1); rc=$?
check "--average-weights 1 refused (exit 2: $msg)" [ $rc -eq 2 -a ! -e $T/x ]

# ---- GED ----
$FT --task ged --train $T/ged_train.tsv --dev $T/ged_dev.txt --out $T/ged --epochs 10 2>/dev/null
check "finetune ged exits 0 (tab/LF train, space/CRLF dev)" [ $? -eq 0 ]
check "ged output is ElectraForPreTraining" [ "$(arch $T/ged)" = ElectraForPreTraining ]
out=$($BIN eval --task ged --data $T/ged_dev.txt --model $T/ged --out $T/ged_pred.tsv)
f05=$(json_get - f0.5 <<<"$out")
check "ged learns the error word (F0.5 $f05 >= 0.9)" ge "$f05" 0.9
check "ged predictions: one line per word plus blank lines" \
  [ "$(grep -c . $T/ged_pred.tsv)" -eq "$(grep -c '[a-z]' $T/ged_dev.txt)" ]

# ---- QA (small windows so contexts span several) ----
$FT --task squad --train $T/sq_train.json --dev $T/sq_dev.json --out $T/sq --epochs 10 \
  --max-seq-len 24 --doc-stride 8 2>$T/sq.log
check "finetune squad exits 0" [ $? -eq 0 ]
check "squad windows: more sequences than questions" grep -q '64 train / 32 dev examples -> [0-9]\{3\} /' $T/sq.log
# The width defaults come from the --init model's config: SQuAD's 384 tokens capped to its
# 128 positions, LR 3e-4 for a hidden size <= 256.
$BIN finetune --init $T/tiny --task squad --train $T/sq_train.json --dev $T/sq_dev.json \
  --out $T/sq_def --epochs 1 --log-every 0 --threads 2 --max-train-examples 4 \
  --max-dev-examples 4 2>$T/sq_def.log
check "default max_seq_len 384 capped to the --init model's 128 positions" \
  grep -q "max_seq_len 384 capped to the model's 128 positions" $T/sq_def.log
check "default LR 3e-4 for the --init model's hidden size 32" grep -q 'lr 0.0003,' $T/sq_def.log
check "squad output is ElectraForQuestionAnswering" [ "$(arch $T/sq)" = ElectraForQuestionAnswering ]
out=$($BIN eval --task squad --data $T/sq_dev.json --model $T/sq --max-seq-len 24 --doc-stride 8 --out $T/sq_pred.json)
f1=$(json_get - f1 <<<"$out")
check "squad learns (F1 $f1 >= 90)" ge "$f1" 90
check "squad: engine eval = trainer's dev eval" near "$f1" "$(json_get $T/sq/eval.json dev/f1)"
check "squad predictions JSON maps ids to answers" [ "$(json_get $T/sq_pred.json q0)" = good ]
$FT --task squad2 --train $T/sq2_train.json --dev $T/sq2_dev.json --out $T/sq2 --epochs 10 --max-seq-len 64 2>/dev/null
check "finetune squad2 exits 0" [ $? -eq 0 ]
check "squad2 stores electra_null_threshold" quiet json_get $T/sq2/config.json electra_null_threshold
out=$($BIN eval --task squad2 --data $T/sq2_dev.json --model $T/sq2 --max-seq-len 64)
check "eval squad2 reports HasAns/NoAns" quiet json_get - NoAns_f1 <<<"$out"

# ---- bad input ----
printf 'sentence\tlabel\nfoo bar\t1\nbaz\t7\n' >$T/bad_label.tsv
msg=$($FT --task sst2 --train $T/sst_train.tsv --dev $T/bad_label.tsv --out $T/x 2>&1); rc=$?
check "unknown dev label: exit 1 naming file:line ($msg)" [ $rc -eq 1 -a -n "$(grep -o 'bad_label.tsv:3: unknown label' <<<"$msg")" ]
printf 'text\tlabel\nfoo bar\t1\n' >$T/bad_cols.tsv
msg=$($FT --task sst2 --train $T/bad_cols.tsv --dev $T/sst_dev.tsv --out $T/x 2>&1); rc=$?
check "missing column: exit 1 naming the column" [ $rc -eq 1 -a -n "$(grep -o "no column 'sentence'" <<<"$msg")" ]
{ head -5 $T/sst_train.tsv; printf '\nonly-one-field\n'; tail -n +6 $T/sst_train.tsv; } >$T/short.tsv
msg=$($FT --task sst2 --train $T/short.tsv --dev $T/sst_dev.tsv --out $T/x --epochs 1 2>&1); rc=$?
check "empty line and short row: skipped and reported" [ $rc -eq 0 -a -n "$(grep -o 'skipped 2 row(s); first: .*short.tsv:6: empty line' <<<"$msg")" ]
printf 'Dear c\nSir q\n' >$T/bad.ged
msg=$($FT --task ged --train $T/bad.ged --dev $T/ged_dev.txt --out $T/x_ged 2>&1); rc=$?
check "GED unknown label: exit 1 naming file:line" [ $rc -eq 1 -a -n "$(grep -o "bad.ged:2: unknown label 'q'" <<<"$msg")" ]
python3 - "$T" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1] + "/sq_train.json"))
d["data"][0]["paragraphs"][0]["qas"][0]["answers"][0]["answer_start"] += 1
json.dump(d, open(sys.argv[1] + "/sq_shift.json", "w"))
EOF
msg=$($FT --task squad --train $T/sq_shift.json --dev $T/sq_dev.json --out $T/x_squad --epochs 1 --max-seq-len 64 2>&1); rc=$?
check "SQuAD answer not at its offset: counted and reported" [ $rc -eq 0 -a -n "$(grep -o '1 answer(s) not at their answer_start' <<<"$msg")" ]
msg=$($BIN eval --task ged --data $T/ged_dev.txt --model $T/sst 2>&1); rc=$?
check "eval refuses a model of the wrong architecture" [ $rc -eq 1 -a -n "$(grep -o 'needs ElectraForPreTraining' <<<"$msg")" ]
msg=$($BIN eval --task squad --data $T/sq2_dev.json --model $T/sq2 --max-seq-len 64 2>&1); rc=$?
check "squad on SQuAD 2.0 data points to squad2" [ $rc -eq 1 -a -n "$(grep -o 'use --task squad2' <<<"$msg")" ]
mkdir -p $T/notckpt && touch $T/notckpt/precious.txt
msg=$($FT --task sst2 --train $T/sst_train.tsv --dev $T/sst_dev.tsv --out $T/notckpt --epochs 1 2>&1); rc=$?
check "--out that is not a checkpoint directory is refused and kept" [ $rc -eq 1 -a -f $T/notckpt/precious.txt -a -n "$(grep -o 'not a checkpoint directory' <<<"$msg")" ]
$BIN finetune --task nope --train a --dev b --init c --out d 2>/dev/null
check "unknown task: usage error (exit 2)" [ $? -eq 2 ]

# ---- real data (tiny slices; the tiny vocabulary maps most words to [UNK]) ----
R=/work/shared/data
if [ -d $R/glue ]; then
  $FT --task mrpc --train $R/glue/MRPC/train.tsv --dev $R/glue/MRPC/dev.tsv --out $T/mrpc --epochs 1 \
    --max-train-examples 48 --max-dev-examples 48 2>/dev/null
  check "real MRPC slice (BOM, header) fine-tunes" [ $? -eq 0 ]
  out=$($BIN eval --task cola --data $R/glue/CoLA/in_domain_dev.tsv --model $T/mrpc --max-examples 40 2>&1)
  check "eval cola with a 2-label model on real CoLA rows prints MCC" quiet json_get - mcc <<<"$out"
  $FT --task ged --train $R/ged/fce-rei2016/fce-public.train.original.tsv \
    --dev $R/ged/fce-bea19-tokens/fce_dev.txt --out $T/fce --epochs 1 --max-train-examples 32 \
    --max-dev-examples 32 2>/dev/null
  check "real FCE slices (both formats) fine-tune" [ $? -eq 0 ]
  $FT --task squad2 --train $R/squad/squad2-dev-cs224n/dev-v2.0.json \
    --dev $R/squad/squad2-dev-cs224n/dev-v2.0.json --out $T/sq2real --epochs 1 \
    --max-train-examples 16 --max-dev-examples 16 --max-seq-len 128 2>/dev/null
  check "real SQuAD 2.0 slice fine-tunes" [ $? -eq 0 ]
else
  skip "$R absent: real-data slices not run"
fi

[ $fails -eq 0 ]
