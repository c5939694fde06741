#!/usr/bin/env bash
# End to end: what `electra-train finetune` shows and leaves while it trains.
# On a terminal (a pty from script(1)) the pretraining progress bar (step/total,
# a bar, epoch, loss, LR, examples/s, ETA) redrawn with \r; off a terminal the
# same fields as log lines. In --out: metrics.jsonl (train rows per logged
# interval, a val row per epoch with the dev metric) and loss.svg (training
# loss, the dev metric per epoch with a dot each, the learning rate), which
# survive the checkpoint saves that replace --out (a later epoch that is not
# the best, and one that is). Runtime: ~15 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_ftprog_e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }
if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "no torch at $PY: cannot make the tiny checkpoint"; exit 0
fi
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/tiny" --hidden 32 \
  --layers 2 --heads 2 --intermediate 64 --max-position 128 --seed 1 >/dev/null ||
  { bad "make_checkpoint.py failed"; exit 1; }
"$PY" - "$T" <<'EOF'
import random, sys
d = sys.argv[1]; r = random.Random(0)
pool = "that with they have this from word what some other were there when your said".split()
for name, n in (("train", 96), ("dev", 32)):
    with open("%s/%s.tsv" % (d, name), "w") as f:
        f.write("sentence\tlabel\n")
        for i in range(n):
            s = [r.choice(pool) for _ in range(r.randint(4, 8))]
            if i % 2: s.insert(r.randrange(len(s) + 1), "good")
            f.write(" ".join(s) + "\t%d\n" % (i % 2))
EOF
FT="$BIN finetune --task sst2 --train $T/train.tsv --dev $T/dev.tsv --init $T/tiny --batch-size 8 --threads 1"

# ---- off a terminal: log lines ----
# --seed 1: a run whose dev score improves after epoch 1 (the check of
# repeated saves below needs one; whether this tiny model leaves chance level
# at this LR depends on the dropout and shuffle draws, i.e. on the seed)
$FT --out "$T/out/a" --epochs 4 --lr 3e-3 --layer-decay 1 --log-every 4 --seed 1 2>"$T/a.log"
check "finetune exits 0" [ $? -eq 0 ]
check "log lines: step/total, epoch, loss, lr, examples/s, ETA" \
  grep -qE '^step 4/48 \| epoch 1/4 \| loss [0-9.]+ \| lr [0-9.e+-]+ \| [0-9.k]+ ex/s \| ETA ' "$T/a.log"
check "a log line every 4 steps and at each epoch's end (12 per epoch x 4)" \
  [ "$(grep -c '^step ' "$T/a.log")" -eq 12 ]
check "no carriage returns or escapes off a terminal" sh -c "! grep -q $'[\r\033]' '$T/a.log'"
for f in config.json model.safetensors eval.json metrics.jsonl loss.svg; do
  check "--out has $f" [ -s "$T/out/a/$f" ]
done
"$PY" - "$T/out/a" <<'EOF' && ok "metrics.jsonl: train rows every 4 steps, a val row per epoch = eval.json's epochs" || bad "metrics.jsonl content"
import json, math, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/metrics.jsonl")]
ev = json.load(open(d + "/eval.json"))
tr = [r for r in rows if r["kind"] == "train"]
va = [r for r in rows if r["kind"] == "val"]
assert [r["step"] for r in tr] == list(range(4, 49, 4)), [r["step"] for r in tr]
for r in tr:
    for k in ("loss", "lr", "examples_per_s", "time_s"):
        assert math.isfinite(r[k]) and r[k] >= 0, (k, r)
    assert r["epoch"] == (r["step"] - 1) // 12 + 1, r
assert [r["epoch"] for r in va] == [1, 2, 3, 4] and [r["step"] for r in va] == [12, 24, 36, 48], va
for r, e in zip(va, ev["epochs"]):
    assert abs(r["dev_score"] - e["dev"]["score"]) < 1e-6, (r, e)
    assert abs(r["loss"] - e["train_loss"]) < 1e-5, (r, e)
EOF
"$PY" - "$T/out/a/loss.svg" <<'EOF' && ok "loss.svg: training loss, dev accuracy per epoch (a dot each, whole-epoch ticks), learning rate" || bad "loss.svg panels"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
def text(n): return "".join(c.data for c in n.childNodes if c.nodeType == c.TEXT_NODE)
panels = d.getElementsByTagName("g")
titles = [text(p.getElementsByTagName("text")[0]) for p in panels]
assert len(panels) == 3 and titles[0].startswith("Training loss"), titles
assert titles[1] == "Dev accuracy after each epoch" and titles[2] == "Learning rate", titles
dots = [c for c in panels[1].getElementsByTagName("circle") if c.getAttribute("class") == "mk"]
assert len(dots) == 4, len(dots)
xt = [text(t) for t in panels[1].getElementsByTagName("text") if t.getAttribute("class") == "xt"]
assert xt == ["1", "2", "3", "4"], xt
assert len(panels[0].getElementsByTagName("polyline")[0].getAttribute("points").split()) == 12
assert len(panels[2].getElementsByTagName("polyline")[0].getAttribute("points").split()) == 12
EOF
best=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["best_epoch"])' "$T/out/a/eval.json")
echo "# best epoch $best of 4"

# the curves survive saves: with --lr 0 no epoch beats the first (only epoch 1
# is saved, later epochs must still be in the file); with a learning rate the
# later best epochs replace --out and the curves are written again
$FT --out "$T/out/b" --epochs 3 --lr 1e-9 --log-every 0 2>/dev/null
"$PY" - "$T/out/b" <<'EOF' && ok "epochs after the saved one are in metrics.jsonl (best epoch 1 of 3)" || bad "later epochs missing"
import json, sys
d = sys.argv[1]
ev = json.load(open(d + "/eval.json"))
va = [json.loads(l) for l in open(d + "/metrics.jsonl") if '"val"' in l]
assert ev["best_epoch"] == 1 and [r["epoch"] for r in va] == [1, 2, 3], (ev["best_epoch"], va)
EOF
"$PY" - "$T/a.log" "$T/out/a" <<'EOF' && ok "every epoch's save replaced --out and metrics.jsonl came back with all epochs" || bad "metrics lost by a save"
import json, re, sys
saves = re.findall(r"saved .* \(epoch (\d+)", open(sys.argv[1]).read())
va = [json.loads(l) for l in open(sys.argv[2] + "/metrics.jsonl") if '"val"' in l]
assert len(saves) >= 2 and len(va) == 4, (saves, va)
EOF
check "no temporary files left in --out" [ -z "$(find "$T/out" -name '*.tmp-*')" ]

# ---- on a terminal: the progress bar ----
if script -qec "true" /dev/null >/dev/null 2>&1; then
  # 200 columns: the status line is cut to the terminal's width (test_train_progress)
  script -qec "stty cols 200; $FT --out $T/out/c --epochs 2 --log-every 4" /dev/null >"$T/tty.log" 2>&1
  check "on a terminal: exits 0" [ $? -eq 0 ]
  check "on a terminal: a status line redrawn in place (\\r, erase line)" grep -q $'\r\033\[K' "$T/tty.log"
  check "on a terminal: step/total, a bar, epoch, loss, lr, ex/s, ETA" \
    grep -qE '[0-9]+/24 \[[=> ]{20}\] +[0-9]+% \| epoch [12]/2 \| loss [0-9.]+ \| lr [0-9.e+-]+ \| [0-9.k]+ ex/s \| ETA ' "$T/tty.log"
  check "on a terminal: no plain log lines" sh -c "! grep -q '^step ' '$T/tty.log'"
  check "on a terminal: the epoch results stay readable on lines of their own" \
    grep -q $'\r\033\[Kepoch 2: train loss' "$T/tty.log"
else
  skip "script(1) cannot make a pty here: the terminal bar is not checked"
fi

[ $fails -eq 0 ]
