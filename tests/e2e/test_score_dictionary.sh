#!/usr/bin/env bash
# /score with hunspell beside the model (issue 39): a model whose config.json
# carries score_dictionary_weight/_threshold flags a misspelling the model
# alone misses, and nothing else (British and American spellings, a name
# mid-sentence, contractions, "The cat sat on the mat."); a name's prob is
# the model's times score_dictionary_name_weight; --no-dictionary serves the
# model alone; /info says which. The model is a one-step
# pretrained discriminator whose threshold is set above every prob it gives
# the text, so the model alone flags nothing. `electra-train eval
# --dictionary` reports the combination beside the model and hunspell alone.
# Needs hunspell-en-gb + hunspell-en-us (SKIP without them).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
TRAIN=$BUILD/bin/electra-train SERVER=$BUILD/bin/electra-server
fails=0
ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
for b in "$TRAIN" "$SERVER"; do [ -x "$b" ] || { echo "not ok - $b missing (run make)"; exit 1; }; done
if [ ! -r /usr/share/hunspell/en_GB.dic ] || [ ! -r /usr/share/hunspell/en_US.dic ]; then
  echo "ok - # SKIP hunspell-en-gb / hunspell-en-us not installed"; exit 0
fi
T=$(mktemp -d /tmp/electra-e2e-dict-XXXXXX)
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$T"' EXIT

for i in $(seq 200); do
  echo "The cat sat on the mat and the dog ran to the garden. She goes to school every morning."
  echo "I received the colour and the color of the letter because it is organised or organized."
done >"$T/text.txt"
"$TRAIN" vocab --input "$T/text.txt" --vocab-size 120 --out "$T/vocab.txt" 2>/dev/null &&
  "$TRAIN" pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --out "$T/run" --max-steps 1 \
    --preset tiny --threads 1 --val-every 0 >/dev/null 2>&1 ||
  { nok "a one-step discriminator (vocab, pretrain)"; exit 1; }

TEXT="I recieve the colour and the color from Ngozi, becouse it isn't organised or organized."
port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
serve() { # DIR [ARGS...]: starts the server, waits for /ready
  local dir=$1; shift
  "$SERVER" --model "ged=$dir" --port "$port" --no-access-log "$@" >"$T/server.log" 2>&1 &
  spid=$!
  for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/ready" && return 0; sleep 0.1; done
  return 1
}
stop() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=; }
score() { curl -s "http://127.0.0.1:$port/score" -H 'Content-Type: application/json' -d "{\"text\": \"$1\"}"; }
# words flagged, space-separated; and the highest prob
flagged() { "$PYTHON" -c 'import json,sys; print(" ".join(w["word"] for w in json.load(sys.stdin)["words"] if w["flagged"]))'; }
maxprob() { "$PYTHON" -c 'import json,sys; print(max(w["prob"] for w in json.load(sys.stdin)["words"]))'; }
probof() { "$PYTHON" -c 'import json,sys; print([w["prob"] for w in json.load(sys.stdin)["words"] if w["word"] == sys.argv[1]][0])' "$1"; }

serve "$T/run/discriminator" || { nok "server on the one-step model"; exit 1; }
top=$(score "$TEXT" | maxprob)
alone=$(score "$TEXT" | probof Ngozi)
stop
# the model alone flags nothing at a threshold above its highest prob; hunspell's
# verdict (weight 0.9) lifts a rejected word to >= 0.9 + 0.1 p, above it
th=$("$PYTHON" -c "print(round(min($top + 0.01, 0.85), 4))")
M=$T/ged
cp -r "$T/run/discriminator" "$M"
"$PYTHON" - "$M/config.json" "$th" <<'PY'
import json, sys
p, th = sys.argv[1], float(sys.argv[2])
c = json.load(open(p))
c.update(score_threshold=th, score_dictionary_weight=0.9, score_dictionary_threshold=th,
         score_dictionary_name_weight=0.1)
json.dump(c, open(p, "w"), indent=2)
PY

serve "$M" || { nok "server on the model with a dictionary weight"; exit 1; }
got=$(score "$TEXT" | flagged)
check "with the dictionary: the misspellings and nothing else are flagged ($got)" \
  test "$got" = "recieve becouse"
named=$(score "$TEXT" | probof Ngozi)
check "a name mid-sentence: the model's prob times the name weight ($alone x 0.1 = $named)" \
  "$PYTHON" -c "import sys; sys.exit(abs($alone * 0.1 - $named) > 1e-3)"
got=$(score "The cat sat on the mat." | flagged)
check "with the dictionary: nothing flagged in 'The cat sat on the mat.' ($got)" test -z "$got"
info=$(curl -s "http://127.0.0.1:$port/info")
check "/info: score_dictionary_weight 0.9" grep -q '"score_dictionary_weight":0.9' <<<"$info"
check "/info: score_dictionary_name_weight 0.1" grep -q '"score_dictionary_name_weight":0.1' <<<"$info"
check "/info: the threshold is the one chosen with the dictionary" \
  grep -q '"score_threshold_source":"model_with_dictionary"' <<<"$info"
stop

serve "$M" --no-dictionary || { nok "server with --no-dictionary"; exit 1; }
got=$(score "$TEXT" | flagged)
check "--no-dictionary: the model alone misses them ($got)" test -z "$got"
check "/info with --no-dictionary: score_dictionary_weight null" \
  grep -q '"score_dictionary_weight":null' <<<"$(curl -s "http://127.0.0.1:$port/info")"
stop

# eval_holds NAME EXPR DATA MODEL [ARGS...]: eval's JSON j (d = its "dictionary", or {})
# makes the Python expression EXPR true
eval_holds() {
  local name=$1 expr=$2 data=$3 model=$4 out
  shift 4
  out=$("$TRAIN" eval --task ged --data "$data" --model "$model" "$@" 2>&1)
  check "$name ($out)" "$PYTHON" -c 'import json,sys
j = json.loads(sys.argv[1]); d = j.get("dictionary", {})
sys.exit(not eval(sys.argv[2]))' "$out" "$expr"
}

# eval: the same words as a tokenized GED file; the combination beside hunspell alone
printf 'I c\r\nrecieve i\r\nthe c\r\ncolour c\r\nfrom c\r\nNgozi c\r\n, c\r\nbecouse i\r\nit c\r\nis c\r\nn'"'"'t c\r\norganized c\r\n. c\r\n\r\n' >"$T/dev.txt"
eval_holds "eval with the model's dictionary weight: hunspell alone and the combination at P = R = 1" \
  'd["f0.5"] == 1 and d["alone"]["f0.5"] == 1 and d["weight"] == 0.9' "$T/dev.txt" "$M"
eval_holds "eval --dictionary off: no dictionary scores, the model alone flags nothing" \
  '"dictionary" not in j and j["recall"] == 0' "$T/dev.txt" "$M" --dictionary off

# the English n-gram model beside hunspell (score_dictionary_ngram; lang/ngram.h)
if [ ! -r /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ]; then
  echo "ok - # SKIP the n-gram part: pocketsphinx-en-us not installed"
  exit $((fails > 0))
fi
G=$T/ged-ngram
cp -r "$M" "$G"
"$PYTHON" - "$G/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["score_dictionary_ngram"] = True
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
PREP="I am interested on music and I recieve letters."
serve "$G" || { nok "server on a model with score_dictionary_ngram"; exit 1; }
got=$(score "$PREP" | flagged)
check "with the n-gram model: the wrong preposition and the misspelling flagged ($got)" \
  test "$got" = "on recieve"
got=$(score "The cat sat on the mat." | flagged)
check "with the n-gram model: nothing flagged in 'The cat sat on the mat.' ($got)" test -z "$got"
got=$(curl -s "http://127.0.0.1:$port/v2/check" --data-urlencode "text=I am interested on music." \
  -d language=en-US | "$PYTHON" -c 'import json,sys
m = json.load(sys.stdin)["matches"]
print(";".join("%d:%s" % (x["offset"], x["replacements"][0]["value"] if x["replacements"] else "") for x in m))')
check "/v2/check: the n-gram model's correction of the preposition ($got)" test "$got" = "16:in"
got=$(curl -s "http://127.0.0.1:$port/v2/check" \
  --data-urlencode "text=I have goed there. The childs goed home." -d language=en-US |
  "$PYTHON" -c 'import json,sys
print(";".join(x["replacements"][0]["value"] for x in json.load(sys.stdin)["matches"] if x["replacements"]))')
check "/v2/check: a regular ending on an irregular word, the n-gram model choosing the form ($got)" \
  test "$got" = "gone;children;went"
stop
serve "$M" || { nok "server on the model without it"; exit 1; }
got=$(score "$PREP" | flagged)
check "without score_dictionary_ngram: the misspelling alone ($got)" test "$got" = "recieve"
stop
printf 'I c\nam c\ninterested c\non i\nmusic c\n. c\n\n' >"$T/prep.txt"
eval_holds "eval reads the n-gram model as /score does: 'on' found (P = R = 1)" \
  'd["f0.5"] == 1 and d["ngram"]' "$T/prep.txt" "$G"
eval_holds "eval --ngram off: hunspell alone finds nothing there" \
  'd["recall"] == 0 and not d["ngram"]' "$T/prep.txt" "$G" --ngram off
B=$T/bad-ngram
cp -r "$T/run/discriminator" "$B"
"$PYTHON" - "$B/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["score_dictionary_ngram"] = True
json.dump(c, open(sys.argv[1], "w"), indent=2)
PY
"$SERVER" --model "ged=$B" --port "$port" --no-access-log >"$T/bad.log" 2>&1
check "score_dictionary_ngram without the dictionary's weight: refused, the field named" \
  grep -q 'score_dictionary_ngram.*needs' "$T/bad.log"
exit $((fails > 0))
