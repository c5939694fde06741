#!/usr/bin/env bash
# End to end: --time-limit plans the learning-rate schedule (train/model/schedule.h).
# A `tiny` pretraining run with --time-limit 20s on a small generated text
# must end by its plan within the limit (setup and the final validation and
# save included, 1 s tolerance as in tests/e2e/test_time_limit_wall.sh),
# with the last logged LR near 0 and the planned total in metrics.jsonl and
# the saved settings; --max-steps caps
# the plan; a resumed session plans its own limit; a fine-tuning run (from
# the pretraining run's discriminator, so no PyTorch is needed) with
# --time-limit ends by its plan too, and its epochs still bound it.
# Runtime: ~50 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_time_limit.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
SLACK=1 # seconds beyond the limit: process exit, a last step or save slower than measured

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

"$PY" tests/e2e/simple_text.py "$T" || { bad "generating the text failed"; exit 1; }
"$BIN" vocab --input "$T/text.txt" --vocab-size 120 --out "$T/vocab.txt" 2>/dev/null ||
  { bad "vocab failed"; exit 1; }

now() { date +%s.%N; }
within() { "$PY" -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"; }
P=(--input "$T/text.txt" --vocab "$T/vocab.txt" --preset tiny --batch-size 8 --seq-len 48
   --threads 2 --log-every 5)

# ---- pretraining, 20 s ----
t0=$(now)
"$BIN" pretrain "${P[@]}" --out "$T/run" --time-limit 20s >/dev/null 2>"$T/run.log"
rc=$?
wall=$("$PY" -c "print('%.1f' % ($(now) - $t0))")
check "pretrain --time-limit 20s exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/run.log" | tail -5
check "it ran ${wall}s: within 20 s + ${SLACK} s" within "$wall" $((20 + SLACK))
check "it ended by its plan, not by the hard stop" grep -q "^finished the time-planned schedule at step" "$T/run.log"
check "the plan was announced" grep -q "^time plan: .*s per step measured -> [0-9]* steps in [0-9]*s (warmup [0-9]*)" "$T/run.log"
check "log lines show the planned total as ~N" grep -q "^step [0-9]*/~[0-9]* |" "$T/run.log"
"$PY" - "$T/run" 5e-4 20 <<'EOF' && ok "metrics.jsonl: plan complete (last LR ~0, planned_steps = last step), warmup a tenth, steps within 20 s" || bad "metrics.jsonl of the time-planned run"
import json, sys
run, peak, limit = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
rows = [json.loads(l) for l in open(run + "/metrics.jsonl")]
tr = [r for r in rows if r["kind"] == "train"]
last = tr[-1]
planned = [r["planned_steps"] for r in tr if "planned_steps" in r]
assert planned, "no planned_steps in the train rows"
assert last["planned_steps"] == last["step"], (last["planned_steps"], last["step"])
assert last["step"] >= 50, last["step"]
assert last["lr"] <= 0.02 * peak, ("last LR", last["lr"])
assert last["time_s"] <= limit, ("seconds in steps", last["time_s"])
top = max(r["lr"] for r in tr)
assert top >= 0.7 * peak, ("LR never near the peak", top)
# warmup: rising over about a tenth of the plan (the rows are 5 steps apart)
peak_step = max(tr, key=lambda r: r["lr"])["step"]
assert 0.05 * last["step"] <= peak_step <= 0.2 * last["step"], (peak_step, last["step"])
s = json.load(open(run + "/state/settings.json"))
assert s["planned_steps"] == last["step"] and s["max_steps"] == 10**12 and s["warmup_auto"] is True, s
EOF

# ---- --max-steps stays an upper bound ----
"$BIN" pretrain "${P[@]}" --out "$T/cap" --time-limit 20s --max-steps 40 >/dev/null 2>"$T/cap.log"
check "--max-steps 40 with --time-limit 20s: exits 0" [ $? -eq 0 ]
"$PY" - "$T/cap" <<'EOF' && ok "--max-steps 40 caps the plan (40 steps, LR decayed to ~0)" || bad "--max-steps 40 did not cap the plan"
import json, sys
tr = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl") if '"train"' in l]
assert tr[-1]["step"] == 40 and tr[-1]["planned_steps"] == 40, tr[-1]
assert tr[-1]["lr"] <= 0.03 * 5e-4, tr[-1]
EOF

# ---- a resumed session plans its own limit ----
if [ $rc -eq 0 ]; then
  before=$(grep -o '^finished the time-planned schedule at step [0-9]*' "$T/run.log" | grep -o '[0-9]*$')
  t0=$(now)
  "$BIN" pretrain --out "$T/run" --resume --time-limit 8s --log-every 5 >/dev/null 2>"$T/resume.log"
  rc2=$?
  wall=$("$PY" -c "print('%.1f' % ($(now) - $t0))")
  check "resume with --time-limit 8s exits 0 (rc $rc2)" [ $rc2 -eq 0 ]
  check "the resumed session ran ${wall}s: within 8 s + ${SLACK} s" within "$wall" $((8 + SLACK))
  "$PY" - "$T/run" "$before" <<'EOF' && ok "resumed session: more steps, a new plan, last LR ~0" || bad "resumed time-planned session"
import json, sys
before = int(sys.argv[2])
tr = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl") if '"train"' in l]
last = tr[-1]
assert last["step"] > before + 10, (last["step"], before)
# the plan is re-made as the step time changes, so the deadline may end it a step or two
# short of its last plan (seen once in ~2,000 steps: 2000 of 2002, LR 7.5e-7); what must
# hold is that it ran to the end of a decayed schedule
assert 0 <= last["planned_steps"] - last["step"] <= 5 and last["lr"] <= 0.02 * 5e-4, last
# while the new session measured, the complete plan's LR 0 held; no jump to the peak
after = [r for r in tr if r["step"] > before]
assert max(r["lr"] for r in after) <= 0.9 * 5e-4, after[:3]
EOF
  "$BIN" pretrain --out "$T/run" --resume --time-limit 0 2>"$T/nolimit.log"
  check "resume without any limit or --max-steps is refused with a hint" \
    sh -c "[ $? -eq 1 ] && grep -q 'give --time-limit or --max-steps' '$T/nolimit.log'"
fi

# ---- fine-tuning ----
if [ $rc -eq 0 ]; then
  FT=("$BIN" finetune --task sst2 --train "$T/train.tsv" --dev "$T/dev.tsv" --init "$T/run"
      --batch-size 8 --threads 2 --log-every 1)
  t0=$(now)
  "${FT[@]}" --out "$T/ft" --epochs 1000 --time-limit 10s 2>"$T/ft.log"
  rc3=$?
  wall=$("$PY" -c "print('%.1f' % ($(now) - $t0))")
  check "finetune --time-limit 10s --epochs 1000 exits 0 (rc $rc3)" [ $rc3 -eq 0 ]
  [ $rc3 -eq 0 ] || sed 's/^/#   /' "$T/ft.log" | tail -5
  check "it ran ${wall}s: within 10 s + ${SLACK} s" within "$wall" $((10 + SLACK))
  check "the fine-tuning plan was announced" grep -q "^finetune: time plan: .* -> [0-9]* steps in [0-9]*s" "$T/ft.log"
  "$PY" - "$T/ft" "$T/ft.log" <<'EOF' && ok "finetune: plan complete (last LR ~0), eval.json has planned_steps and the epochs run" || bad "finetune time plan"
import json, re, sys
ev = json.load(open(sys.argv[1] + "/eval.json"))
steps = [(int(m.group(1)), int(m.group(2)), float(m.group(3))) for m in
         re.finditer(r"^step (\d+)/~?(\d+) \| epoch \d+/\d+ \| loss \S+ \| lr (\S+)", open(sys.argv[2]).read(), re.M)]
last = steps[-1]
assert ev["planned_steps"] == ev["steps"] == last[0] == last[1], (ev["planned_steps"], ev["steps"], last)
assert ev["time_limit_seconds"] == 10, ev
peak = max(s[2] for s in steps)
assert last[2] <= 0.05 * peak, ("last LR", last[2], peak)
assert 8 < ev["steps"] < 8 * 1000, ev["steps"]
assert ev["epochs_run"] == len(ev["epochs"]) and ev["epochs_run"] < 1000, ev["epochs_run"]
EOF
  "${FT[@]}" --out "$T/ft2" --epochs 2 --time-limit 60s 2>"$T/ft2.log"
  "$PY" - "$T/ft2" <<'EOF' && ok "finetune: --epochs 2 bounds a generous --time-limit (16 steps)" || bad "finetune epochs bound"
import json, sys
ev = json.load(open(sys.argv[1] + "/eval.json"))
assert ev["steps"] == ev["planned_steps"] == 16 and ev["epochs_run"] == 2, ev
EOF
fi

[ $fails -eq 0 ]
