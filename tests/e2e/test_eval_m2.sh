#!/usr/bin/env bash
# `electra-train eval --task ged --m2 FILE`: corrections scored like GEC on a
# hand-made M2 file, for hunspell's first suggestions (docs/GED.md §6):
# the figures printed and written to --out as JSON agree with a count by
# hand, UNK and noop edits and the second annotator left out, --language
# (en-GB: en_GB alone judges and suggests), a malformed file refused naming
# its line, and --m2 with --data refused; with
# EL_M2_MODEL (a GED model directory) the checker's column beside it. Needs
# Debian's hunspell-en-gb/en-us (SKIP without). Runtime: < 1 s (a few with a model).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
T=$(mktemp -d /tmp/el_eval_m2.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh
ET=$BUILD/bin/electra-train
[ -x "$ET" ] || { nok "$ET is missing (run make)"; exit 1; }
if [ ! -r /usr/share/hunspell/en_GB.dic ] || [ ! -r /usr/share/hunspell/en_US.dic ]; then
  skip "no /usr/share/hunspell/en_GB.dic or en_US.dic (Debian hunspell-en-gb, hunspell-en-us)"
  exit 0
fi

# hunspell corrects "Becouse" and "recieved" as the gold does; its "tomorrow"
# is a one-word edit where this gold writes a two-word one (3 5, gold edits
# are compared as written), so it does not match. Gold: 6 edits (UNK, noop
# and annotator 1 left out); hunspell: 3 proposed, 2 matched.
cat >"$T/gold.m2" <<'M2'
S Becouse I recieved the letter .
A 0 1|||R:SPELL|||Because|||REQUIRED|||-NONE-|||0
A 2 3|||R:SPELL|||received|||REQUIRED|||-NONE-|||0
A 3 4|||R:DET|||your|||REQUIRED|||-NONE-|||1

S She go to school tomorow .
A 1 2|||R:VERB:TENSE|||will go|||REQUIRED|||-NONE-|||0
A 3 5|||R:OTHER|||school tomorrow|||REQUIRED|||-NONE-|||0
A 3 3|||M:DET|||the|||REQUIRED|||-NONE-|||0

S It was nice .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S I like it it .
A 3 4|||U:PRON||||||REQUIRED|||-NONE-|||0
A 0 1|||UNK|||I|||REQUIRED|||-NONE-|||0
M2
out=$("$ET" eval --task ged --m2 "$T/gold.m2" --out "$T/s.json" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
check "eval --m2 exits 0 (rc $rc)" [ "$rc" -eq 0 ]
check "the header counts 4 sentences, 6 gold edits, 1 UNK left out" \
  grep -q '4 sentences, 6 gold edits (1 UNK left out)' <<<"$out"
check "a hunspell column" grep -qE '^ +hunspell$' <<<"$out"
check "precision 2/3 printed" grep -qE '^precision +0\.667$' <<<"$out"
check "recall 2/6 printed" grep -qE '^recall +0\.333$' <<<"$out"
check "SPELL recall 1 (2 of 2)" grep -qE '^  SPELL \(2\) +1\.000$' <<<"$out"
check "DET recall 0 (the M:DET as DET)" grep -qE '^  DET \(1\) +0\.000$' <<<"$out"
check "MISSING row by operation" grep -qE '^  MISSING \(1\) +0\.000$' <<<"$out"
json_ok=$(/usr/bin/python3 - "$T/s.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))["hunspell"]
want = {"gold": 6, "proposed": 3, "matched": 2, "unk_gold": 1}
bad = {k: d.get(k) for k in want if d.get(k) != want[k]}
f = 1.25 * (2 / 3) * (1 / 3) / (0.25 * (2 / 3) + 1 / 3)
if bad or abs(d["f0.5"] - f) > 1e-9 or d["recall_by_type"]["SPELL"]["recall"] != 1:
    print("wrong:", bad, d["f0.5"])
else:
    print("ok")
PY
)
check "--out JSON: 6 gold, 3 proposed, 2 matched, F0.5 as computed ($json_ok)" [ "$json_ok" = ok ]

# British gold: an American spelling is an edit only en_GB sees
cat >"$T/gb.m2" <<'M2'
S My favorite film was at the theater .
A 1 2|||R:SPELL|||favourite|||REQUIRED|||-NONE-|||0
A 6 7|||R:SPELL|||theatre|||REQUIRED|||-NONE-|||0

S I recieved a colour photo .
A 1 2|||R:SPELL|||received|||REQUIRED|||-NONE-|||0
M2
counts() { /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["hunspell"]
print(d["proposed"], d["matched"], d["gold"])' "$1"; }
"$ET" eval --task ged --m2 "$T/gb.m2" --language en-GB --out "$T/gb.json" >/dev/null 2>&1; rc=$?
got=$(counts "$T/gb.json" 2>&1)
check "--language en-GB: favorite, theater and recieved corrected, 3 of 3 (rc $rc, got $got)" \
  [ "$rc" -eq 0 ] && [ "$got" = "3 3 3" ]
"$ET" eval --task ged --m2 "$T/gb.m2" --out "$T/en.json" >/dev/null 2>&1
got=$(counts "$T/en.json" 2>&1)
check "default (en): only recieved, 1 of 3 (got $got)" [ "$got" = "1 1 3" ]
"$ET" eval --task ged --m2 "$T/gb.m2" --language en-US --out "$T/us.json" >/dev/null 2>&1
got=$(counts "$T/us.json" 2>&1)
check "--language en-US: recieved and colour proposed, 1 matched (got $got)" [ "$got" = "2 1 3" ]
out=$("$ET" eval --task ged --m2 "$T/gb.m2" --language en-AU 2>&1); rc=$?
check "--language en-AU refused, the choices named (rc $rc)" \
  bash -c '[ "$0" -eq 2 ] && grep -q "must be one of en|en-GB|en-US" <<<"$1"' "$rc" "$out"
out=$("$ET" eval --task ged --data x.tsv --model x --language en-GB 2>&1); rc=$?
check "--language without --m2 refused (rc $rc)" \
  bash -c '[ "$0" -eq 2 ] && grep -q "goes with --m2" <<<"$1"' "$rc" "$out"

out=$("$ET" eval --task ged --m2 "$T/gold.m2" --max-examples 1 2>&1)
check "--max-examples 1 scores the first sentence only" grep -q '1 sentences, 2 gold edits' <<<"$out"
printf 'S a b\nA 0 5|||R:SPELL|||x|||REQUIRED|||-NONE-|||0\n' >"$T/bad.m2"
out=$("$ET" eval --task ged --m2 "$T/bad.m2" 2>&1); rc=$?
check "a span past the sentence refused naming file:line (rc $rc: $out)" \
  bash -c '[ "$0" -eq 1 ] && grep -q "bad.m2:2: edit span 0 5 outside" <<<"$1"' "$rc" "$out"
out=$("$ET" eval --task ged --m2 "$T/gold.m2" --data x.tsv 2>&1); rc=$?
check "--m2 with --data refused (rc $rc)" bash -c '[ "$0" -eq 2 ] && grep -q "without --data" <<<"$1"' "$rc" "$out"
out=$("$ET" eval --task cola --m2 "$T/gold.m2" 2>&1); rc=$?
check "--m2 with another task refused (rc $rc)" [ "$rc" -eq 2 ]

# The checker's column: a GED model directory (EL_M2_MODEL, e.g. the FCE
# recipe's; its generator from MODEL/generator or EL_M2_GENERATOR), else a
# tiny random detector and generator flagging every word (what they propose
# is noise: the column's plumbing and the cost line are what is checked).
if [ -z "${EL_M2_MODEL:-}" ] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  /usr/bin/python3 - "$T/vocab.txt" <<'PY'
import sys
sys.path.insert(0, "tests/reference")
import make_checkpoint as mc
open(sys.argv[1], "w").write("".join(t + "\n" for t in mc.builtin_vocab()))
PY
  mk=(/usr/bin/python3 tests/reference/make_checkpoint.py --vocab "$T/vocab.txt" --hidden 32 --layers 2
      --heads 2 --intermediate 64 --embedding 32 --seed 3)
  if "${mk[@]}" --arch pretraining --out "$T/rand" --score-threshold 0.01 >/dev/null 2>&1 &&
     "${mk[@]}" --arch mlm --tie --out "$T/rand/generator" >/dev/null 2>&1; then
    EL_M2_MODEL=$T/rand
  fi
fi
if [ -z "${EL_M2_MODEL:-}" ] || [ ! -r "$EL_M2_MODEL/config.json" ]; then
  skip "no model: set EL_M2_MODEL to a GED model directory to score the checker's column (no python3-torch for a random one)"
else
  gen=()
  [ -n "${EL_M2_GENERATOR:-}" ] && gen=(--generator "$EL_M2_GENERATOR")
  out=$("$ET" eval --task ged --m2 "$T/gold.m2" --model "$EL_M2_MODEL" "${gen[@]}" \
        --out "$T/m.json" 2>&1); rc=$?
  echo "$out" | sed 's/^/# /'
  check "eval --m2 --model exits 0 (rc $rc)" [ "$rc" -eq 0 ]
  check "model and hunspell side by side" grep -qE '^ +model +hunspell$' <<<"$out"
  js=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print("ok" if d["model"]["gold"] == 6 and d["hunspell"]["matched"] == 2 else d)' "$T/m.json" 2>&1)
  check "--out JSON has both systems on the same 6 gold edits ($js)" [ "$js" = ok ]
  cost=$(grep "^the model's passes:" <<<"$out")
  check "the model's passes counted: detection and verification tokens ($cost)" \
    bash -c 'grep -qE "detection [1-9][0-9]* tokens; generator [0-9]+ sentences \([0-9]+ tokens\); verification [1-9][0-9]* sentences \([1-9][0-9]* tokens\) in [1-9][0-9]* rounds" <<<"$0"' "$cost"
fi
echo "# $fails failed"
[ $fails -eq 0 ]
