#!/usr/bin/env bash
# End to end: `electra-train vocab` then `pretrain` (ELECTRA and MLM) on a
# small generated text: the vocabulary file, the run directories, a parseable
# metrics.jsonl with train and validation rows, a well-formed loss.svg, the
# plain log lines off a terminal, checkpoints that the PyTorch reference
# (tests/reference/electra_ref.py) loads strictly, token-cache reuse, and
# Ctrl-C (SIGINT) saving before exit. Runtime: ~30 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_train_e2e.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. tests/tap.sh

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

# A small text with structure to learn: documents of templated sentences.
"$PY" - "$T/text.txt" <<'EOF'
import random, sys
r = random.Random(1)
subj = "the cat|a dog|my sister|the old farmer|our teacher|the small bird|his friend".split("|")
verb = "sees|likes|finds|carries|paints|follows|remembers".split("|")
obj = "the red ball|a green hat|the long road|an open door|the quiet river|a heavy box".split("|")
tail = "in the morning|after dinner|near the house|with great care|every day|at night".split("|")
with open(sys.argv[1], "w") as f:
    for d in range(400):
        for s in range(r.randint(1, 6)):
            f.write("%s %s %s %s .\n" % (r.choice(subj), r.choice(verb), r.choice(obj), r.choice(tail)))
        f.write("\n")
EOF

# ---- vocab ----
"$BIN" vocab --input "$T/text.txt" --vocab-size 120 --out "$T/vocab.txt" 2>"$T/vocab.log"
check "vocab exits 0" [ $? -eq 0 ]
check "vocab starts with [PAD] [UNK] [CLS] [SEP] [MASK]" \
  [ "$(head -5 "$T/vocab.txt" | tr '\n' ' ')" = "[PAD] [UNK] [CLS] [SEP] [MASK] " ]
n=$(wc -l <"$T/vocab.txt")
check "vocab has at most --vocab-size entries ($n)" [ "$n" -le 120 ] && [ "$n" -gt 40 ]
check "whole words were learned (the, morning)" sh -c "grep -qx the '$T/vocab.txt' && grep -qx morning '$T/vocab.txt'"
check "no duplicate tokens" [ "$(sort "$T/vocab.txt" | uniq -d | wc -l)" -eq 0 ]
"$BIN" vocab --input "$T/text.txt" --vocab-size 120 --out "$T/vocab2.txt" 2>/dev/null
check "vocab is deterministic" cmp -s "$T/vocab.txt" "$T/vocab2.txt"
check "vocab --help documents the algorithm" sh -c "'$BIN' vocab --help | grep -q 'most frequent'"

# ---- pretrain (ELECTRA) ----
R=$T/run
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$R" --max-steps 16 \
  --batch-size 8 --seq-len 48 --log-every 4 --val-every 8 --save-every 8 --threads 2 \
  >"$T/out.log" 2>"$T/err.log"
rc=$?
check "pretrain exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/err.log" | tail -5
for f in discriminator/config.json discriminator/model.safetensors discriminator/vocab.txt \
         discriminator/tokenizer_config.json generator/config.json generator/model.safetensors \
         state/state.bin state/settings.json metrics.jsonl loss.svg cache/tokens.bin; do
  check "RUN/$f exists" [ -s "$R/$f" ]
done
check "no temporary files left in RUN" [ -z "$(find "$R" -name '*.tmp-*')" ]
check "plain log lines off a terminal" grep -q "^step 16/16 |.*tok/s.*gen .*disc .*lr .*ETA" "$T/err.log"
check "no carriage returns off a terminal" sh -c "! grep -q $'\r' '$T/err.log'"
check "validation reported with AUC" grep -q "validation at step 16 .*AUC" "$T/err.log"
check "progress lines: discriminator loss beside its base-rate loss, the validation AUC" \
  grep -q "^step 16/16 |.* disc [0-9.]* (base rate [0-9.]*) | val AUC [0-9.]* | lr .*ETA" "$T/err.log"
check "progress lines: no discriminator accuracy (the base rate of original tokens)" \
  sh -c "! grep -q 'disc [0-9.]* acc' '$T/err.log'"
"$PY" - "$R" <<'EOF' && ok "metrics.jsonl: JSON rows, train every 4 steps, val at 0/8/16" || bad "metrics.jsonl content"
import json, sys, math
rows = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl")]
tr = [r for r in rows if r["kind"] == "train"]
va = [r for r in rows if r["kind"] == "val"]
assert [r["step"] for r in tr] == [4, 8, 12, 16], [r["step"] for r in tr]
assert [r["step"] for r in va] == [0, 8, 16], [r["step"] for r in va]
for r in tr:
    for k in ("loss", "gen_loss", "gen_acc", "disc_loss", "disc_acc", "lr", "tokens_per_s", "grad_norm"):
        assert math.isfinite(r[k]), (k, r)
    assert abs(r["loss"] - (r["gen_loss"] + 50 * r["disc_loss"])) < 1e-3 * r["loss"], r
for r in va:
    for k in ("gen_acc", "disc_acc", "disc_auc", "unigram_acc", "replaced_frac"):
        assert 0 <= r[k] <= 1, (k, r)
    # base-rate loss: the binary entropy of the replaced fraction among the
    # scored tokens, which include the never-replaced [CLS]/[SEP], so it lies
    # between 0 and the entropy of the content-token fraction
    q = r["replaced_frac"]
    h = -(q * math.log(q) + (1 - q) * math.log(1 - q))
    assert 0 < r["disc_base_loss"] <= h + 1e-6, (r["disc_base_loss"], h)
    assert r["disc_base_loss"] > 0.8 * h, (r["disc_base_loss"], h)
EOF
"$PY" -c "import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == 'svg'; assert len(d.getElementsByTagName('polyline')) >= 4" "$R/loss.svg" \
  && ok "loss.svg is well-formed SVG with curves" || bad "loss.svg is not well-formed"
"$PY" - "$R" <<'EOF' && ok "metrics.jsonl train rows: disc_base_loss of the batches' replaced fraction" || bad "train rows lack disc_base_loss"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl")]
tr = [r for r in rows if r["kind"] == "train"]
assert all(0 < r["disc_base_loss"] < 0.7 for r in tr), tr
EOF
"$PY" - "$R/loss.svg" <<'EOF' && ok "loss.svg: linear loss panels, discriminator vs base rate, LR panel, a dot per validation" || bad "loss.svg panels"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
def text(n): return "".join(c.data for c in n.childNodes if c.nodeType == c.TEXT_NODE)
panels = d.getElementsByTagName("g")
titles = [text(p.getElementsByTagName("text")[0]) for p in panels]
assert len(panels) == 4, titles
assert titles[0].startswith("Generator loss") and titles[1].startswith("Discriminator loss against the base rate"), titles
assert titles[2].startswith("Validation") and titles[3] == "Learning rate", titles
for p in (panels[0], panels[1], panels[3]):  # linear y axes: evenly spaced tick values
    ys = [float(text(t)) for t in p.getElementsByTagName("text") if t.getAttribute("class") == "yt"]
    steps = {round(b - a, 12) for a, b in zip(ys, ys[1:])}
    assert len(ys) >= 3 and len(steps) == 1, ys
# the validation panel: 3 validations (steps 0, 8, 16) x 3 series have a dot each
dots = [c for c in panels[2].getElementsByTagName("circle") if c.getAttribute("class") == "mk"]
assert len(dots) >= 9, len(dots)
lr = panels[3].getElementsByTagName("polyline")[0].getAttribute("points").split()
assert len(lr) == 4, lr
EOF
"$PY" - "$R" <<'EOF' && ok "configs: ElectraForPreTraining 128/4/2, ElectraForMaskedLM 32/1 head" || bad "config.json fields"
import json, sys
d = json.load(open(sys.argv[1] + "/discriminator/config.json"))
g = json.load(open(sys.argv[1] + "/generator/config.json"))
assert d["architectures"] == ["ElectraForPreTraining"] and g["architectures"] == ["ElectraForMaskedLM"]
assert (d["hidden_size"], d["num_hidden_layers"], d["num_attention_heads"], d["intermediate_size"], d["embedding_size"]) == (128, 4, 2, 512, 128)
assert (g["hidden_size"], g["num_attention_heads"], g["intermediate_size"], g["num_hidden_layers"]) == (32, 1, 128, 4)
assert d["vocab_size"] == g["vocab_size"] == sum(1 for _ in open(sys.argv[1] + "/discriminator/vocab.txt"))
EOF

# The PyTorch reference loads both checkpoints strictly (every tensor used).
if [ -f tests/reference/electra_ref.py ] && "$PY" -c 'import torch' 2>/dev/null; then
  "$PY" - "$R" <<'EOF' && ok "PyTorch reference loads discriminator and generator (strict)" || bad "PyTorch reference could not load the checkpoints"
import sys, torch
sys.path.insert(0, "tests/reference")
import electra_ref as er
d = er.load(sys.argv[1] + "/discriminator")
g = er.load(sys.argv[1] + "/generator")
ids = torch.tensor([[2, 10, 11, 12, 13, 3]]); tt = torch.zeros_like(ids); m = torch.ones_like(ids)
p = d(ids, tt, m)["replaced"]
assert p.shape == (1, 6) and torch.isfinite(p).all() and ((p > 0) & (p < 1)).all()
h = g(ids, tt, m)["hidden"]
assert torch.isfinite(g.mlm_logits(h[0, 1:3])).all()
EOF
else
  skip "no torch or tests/reference/electra_ref.py: PyTorch load not checked"
fi

# ---- cache reuse: a second run pointed at the first run's cache ----
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$T/run2" --max-steps 2 \
  --batch-size 4 --seq-len 48 --cache "$R/cache/tokens.bin" --threads 1 2>"$T/err2.log"
check "second run with --cache exits 0" [ $? -eq 0 ]
check "... and reuses the token cache (no tokenizing)" sh -c "! grep -q '^tokenizing' '$T/err2.log'"
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$T/run3" --max-steps 2 \
  --batch-size 4 --seq-len 40 --cache "$R/cache/tokens.bin" --threads 1 2>"$T/err3.log"
check "a cache built for another --seq-len is rebuilt" grep -q "^tokenizing.*sequence length" "$T/err3.log"

# ---- MLM baseline ----
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$T/mlm" --objective mlm \
  --max-steps 6 --batch-size 4 --seq-len 48 --log-every 3 --threads 2 2>"$T/mlm.log"
check "--objective mlm exits 0" [ $? -eq 0 ]
check "RUN/mlm is a full-size ElectraForMaskedLM" "$PY" -c "
import json,sys; c=json.load(open('$T/mlm/mlm/config.json'))
assert c['architectures']==['ElectraForMaskedLM'] and c['hidden_size']==128 and c['num_hidden_layers']==4"
check "no discriminator/generator for MLM" [ ! -e "$T/mlm/discriminator" ] && [ ! -e "$T/mlm/generator" ]
check "MLM log lines" grep -q "^step 6/6 |.*mlm .* acc" "$T/mlm.log"
printf 'She c\ngo i\nhome c\n. c\n\nThe c\ncat c\nsat c\n. c\n' >"$T/ged.txt"
"$BIN" finetune --task ged --train "$T/ged.txt" --dev "$T/ged.txt" --init "$T/mlm" --out "$T/mlm-ged" \
  --epochs 1 --threads 1 >/dev/null 2>"$T/mlm-ged.log"
check "finetune --init an MLM RUN directory uses RUN/mlm (rc $?)" [ -s "$T/mlm-ged/model.safetensors" ]

# ---- SIGINT: saves at the next step boundary, exits 0 ----
"$BIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$T/int" --max-steps 100000 \
  --batch-size 4 --seq-len 48 --log-every 1 --val-every 0 --save-every 0 --threads 1 \
  2>"$T/int.log" &
pid=$!
for _ in $(seq 1 300); do grep -q "^step 3/" "$T/int.log" 2>/dev/null && break; sleep 0.1; done
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit status 0 (rc $rc)" [ $rc -eq 0 ]
check "SIGINT: says it was interrupted and saved" grep -q "interrupted (SIGINT) at step [0-9]*; saved" "$T/int.log"
check "SIGINT: checkpoint and state written" [ -s "$T/int/discriminator/model.safetensors" ] && [ -s "$T/int/state/state.bin" ]
"$BIN" pretrain --out "$T/int" --resume --max-steps 6 --threads 1 --val-every 0 2>"$T/int2.log" >/dev/null
rc=$?
if grep -q "already reached" "$T/int2.log"; then
  ok "interrupted run is resumable (it had already passed step 6)"
else
  check "interrupted run resumes to a new --max-steps (rc $rc)" [ $rc -eq 0 ]
fi

echo "# $fails failed"
[ $fails -eq 0 ]
