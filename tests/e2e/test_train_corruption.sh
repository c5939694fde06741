#!/usr/bin/env bash
# End to end: `pretrain --corruption learner:RATE` (learner errors in the ids
# before masking, train/pretrain/learner_ids.h) and `electra-train corrupt`: the run
# finishes, its settings record the option, its train rows show more
# replaced tokens than the generator alone replaces, a killed and resumed
# run ends bit-identical to an uninterrupted one, bad values are refused;
# `corrupt` prints the FCE token format deterministically. Needs WordNet
# (Debian wordnet-base); skips without. Runtime: ~15 s on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_train_corrupt.XXXXXX)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. tests/tap.sh

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }
if [ ! -r /usr/share/wordnet/verb.exc ]; then
  echo "ok - # SKIP WordNet missing in /usr/share/wordnet (install the Debian package wordnet-base)"
  exit 0
fi

# English-like sentences with determiners, prepositions, verbs and commas.
"$PY" - "$T/text.txt" <<'EOF'
import random, sys
r = random.Random(3)
subj = "the cat|a dog|my sister|the old farmer|our teacher|she|he|they|i".split("|")
verb = {"she": "likes", "he": "finds", "they": "carry", "i": "want"}
obj = "the red ball|a green hat|the long road|an open door|the boxes|two cats|the children".split("|")
tail = "in the morning|after dinner|near the house|with great care|at night|on the table".split("|")
with open(sys.argv[1], "w") as f:
    for d in range(300):
        for s in range(r.randint(1, 6)):
            sj = r.choice(subj)
            v = verb.get(sj, r.choice(["sees", "paints", "went to", "looked at"]))
            f.write("%s %s %s %s , and it is good .\n" % (sj, v, r.choice(obj), r.choice(tail)))
        f.write("\n")
EOF
"$BIN" vocab --input "$T/text.txt" --vocab-size 200 --out "$T/vocab.txt" 2>/dev/null ||
  { bad "vocab failed"; exit 1; }
ARGS=(--input "$T/text.txt" --vocab "$T/vocab.txt" --max-steps 16 --batch-size 8 --seq-len 48
      --log-every 4 --val-every 0 --save-every 8 --seed 3 --threads 2)

# ---- a run with learner errors, one without ----
"$BIN" pretrain "${ARGS[@]}" --out "$T/learner" --corruption learner:0.15 >/dev/null 2>"$T/learner.log"
rc=$?
check "pretrain --corruption learner:0.15 exits 0 (rc $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/learner.log" | tail -5
check "the setup reports the id tables" grep -q "^learner errors: 0.15 per word" "$T/learner.log"
"$BIN" pretrain "${ARGS[@]}" --out "$T/plain" >/dev/null 2>"$T/plain.log"
check "pretrain without --corruption exits 0" [ $? -eq 0 ]
check "without --corruption no tables are built" sh -c "! grep -q '^learner errors' '$T/plain.log'"

"$PY" - "$T/learner" "$T/plain" <<'EOF' && ok "settings and metrics: learner errors raise the replaced fraction" || bad "settings or metrics of the learner run"
import json, sys
a, b = sys.argv[1], sys.argv[2]
sa = json.load(open(a + "/state/settings.json"))
sb = json.load(open(b + "/state/settings.json"))
assert sa["corruption"] == "learner" and sa["corruption_rate"] == 0.15, sa
assert sb["corruption"] == "none" and sb["corruption_rate"] == 0, sb
ra = [json.loads(l) for l in open(a + "/metrics.jsonl")]
rb = [json.loads(l) for l in open(b + "/metrics.jsonl")]
train_a = [r["replaced_frac"] for r in ra if r["kind"] == "train"]
assert len(train_a) == 4, train_a
assert all("replaced_frac" not in r for r in rb if r["kind"] == "train")
# without learner errors only the generator replaces tokens: the held-out
# rows (uncorrupted in both runs) measure that fraction
gen_only = [r["replaced_frac"] for r in rb if r["kind"] == "val"]
mean_a = sum(train_a) / len(train_a)
print("# replaced fraction: %.3f with learner:0.15, %.3f generator only" % (mean_a, max(gen_only)))
assert mean_a > max(gen_only) + 0.05, (train_a, gen_only)
EOF

# ---- exact resume with learner errors ----
"$BIN" pretrain "${ARGS[@]}" --out "$T/killed" --corruption learner:0.15 >/dev/null 2>"$T/killed.log" &
pid=$!
for _ in $(seq 1 600); do
  grep -q "^saved step" "$T/killed.log" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if grep -q "^finished" "$T/killed.log"; then
  bad "the run finished before it could be killed (machine too fast?)"
else
  "$BIN" pretrain --out "$T/killed" --resume >/dev/null 2>"$T/resumed.log"
  check "--resume of a learner run exits 0" [ $? -eq 0 ]
  check "the resumed run rebuilds the tables" grep -q "^learner errors: 0.15" "$T/resumed.log"
  check "killed + resumed: discriminator identical (cmp)" \
    cmp "$T/learner/discriminator/model.safetensors" "$T/killed/discriminator/model.safetensors"
  check "killed + resumed: generator identical (cmp)" \
    cmp "$T/learner/generator/model.safetensors" "$T/killed/generator/model.safetensors"
fi
"$BIN" pretrain --out "$T/learner" --resume --corruption none --max-steps 20 >/dev/null 2>"$T/c.log"
check "a resume asking for another --corruption is refused" grep -q "differs from the run's" "$T/c.log"

# ---- refused values ----
"$BIN" pretrain "${ARGS[@]}" --out "$T/bad" --corruption learner:2 >/dev/null 2>"$T/bad.log"
check "--corruption learner:2 is refused (exit 2)" [ $? -eq 2 ]
check "the refusal names the accepted forms" grep -q "learner:RATE" "$T/bad.log"
"$BIN" pretrain "${ARGS[@]}" --out "$T/bad2" --objective mlm --corruption learner >/dev/null 2>"$T/bad2.log"
check "--corruption with --objective mlm is refused" grep -q "needs a discriminator" "$T/bad2.log"

# ---- electra-train corrupt ----
printf 'She goes to the school every day , and I walk there .\nI am writing to complain about the show .\n' >"$T/s.txt"
"$BIN" corrupt --input "$T/s.txt" --rate 0.3 --seed 4 >"$T/c1.txt" 2>"$T/c1.log"
check "corrupt exits 0" [ $? -eq 0 ]
"$BIN" corrupt --input "$T/s.txt" --rate 0.3 --seed 4 >"$T/c2.txt" 2>/dev/null
check "corrupt is deterministic for a seed" cmp -s "$T/c1.txt" "$T/c2.txt"
check "corrupt prints 'token c|i' lines and a blank line per sentence" \
  sh -c "grep -vcE '^(\S+ [ci])?$' '$T/c1.txt' | grep -qx 0 && [ \$(grep -c '^$' '$T/c1.txt') -eq 2 ]"
check "corrupt marks some tokens i" grep -q ' i$' "$T/c1.txt"
check "corrupt reports the error types" grep -q "^R:SPELL" "$T/c1.log"
"$BIN" corrupt --input "$T/s.txt" --family M:DET >"$T/c3.txt" 2>/dev/null
check "--family M:DET drops 'the' and marks the next word" grep -qx "school i" "$T/c3.txt"
"$BIN" corrupt --input "$T/s.txt" --family X:Y >/dev/null 2>"$T/c4.log"
check "an unknown --family is refused" grep -q "unknown error type" "$T/c4.log"

echo "# $fails failed"
[ $fails -eq 0 ]
