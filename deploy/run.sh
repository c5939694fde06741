#!/usr/bin/env bash
# `make run` (after the build): serve a model on 127.0.0.1, first making a
# default one when there is none, then print curl examples. Ctrl-C stops it.
#
#   ELECTRA_MODEL_DIR           model to serve as "default" (models/default); any
#                               HF ELECTRA directory. Made here when it has no
#                               config.json: `electra-train recipe ged` on English
#                               text from Debian packages (fortunes,
#                               trans-de-en's example sentences,
#                               wordnet-base; British spellings and names
#                               from wamerican + wbritish): a tiny ELECTRA with
#                               relative positions, pretrained with
#                               learner errors among its replaced tokens, then
#                               fine-tuned to detect generated learner errors;
#                               its calibrated threshold is in its config.json
#   ELECTRA_DEFAULT_MODEL_TIME  the recipe's whole budget (10m; 2m for a quick
#                               look): each stage plans its learning-rate
#                               schedule to end within its share
#   ELECTRA_DEFAULT_VOCAB_SIZE  its WordPiece vocabulary size (8000)
#   ELECTRA_PORT                port (8080)
# Other model directories under models/ (fine-tuned classifiers, QA models)
# are served too, each under its directory's name (models/default only as
# the default: not when ELECTRA_MODEL_DIR names another).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MODEL_DIR=${ELECTRA_MODEL_DIR:-models/default}
MODEL_TIME=${ELECTRA_DEFAULT_MODEL_TIME:-10m}
VOCAB_SIZE=${ELECTRA_DEFAULT_VOCAB_SIZE:-8000}
PORT=${ELECTRA_PORT:-8080}
TRAIN=$BUILD/bin/electra-train
SERVER=$BUILD/bin/electra-server
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
[ -t 2 ] || say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'run: %s\n' "$*" >&2; exit 1; }

# ---- 1. the default model ----

# Plain-text lines from Debian's English text: each fortune (every English
# fortune file of fortunes + fortunes-min) joined onto one line, a document of
# its own (blank line after it), then each WordNet gloss (definition;
# "example sentence") on one line, one document per word class.
fortune_files() {
  local f=/usr/share/games/fortunes p
  for p in "$f"/*; do
    case $p in *.dat | *.u8) continue ;; esac
    [ -f "$p" ] && echo "$p"
  done
}
# The English example sentences of the Ding German-English dictionary
# (trans-de-en: "I'm sorry, I haven't got the homework."), everyday sentences
# of the kind learners write: the part after " :: ", its alternatives split at
# " | " and "; ", notes in [] {} <> dropped, typographic quotes made plain;
# whole sentences of 4+ words without placeholders (sth., sb.), once each.
ding_sentences() {
  local d=/usr/share/trans/de-en
  [ -r "$d" ] || die "$d missing: install the Debian package trans-de-en (deploy/install-deps.sh)"
  awk 'BEGIN { FS = " :: " }
       /^#/ || NF < 2 { next }
       { n = split($2, alt, / \| |; /)
         for (i = 1; i <= n; i++) {
           s = alt[i]
           gsub(/ *\[[^]]*\]| *\{[^}]*\}| *<[^>]*>/, "", s)
           gsub(/’|‘/, "\047", s); gsub(/“|”/, "\"", s); gsub(/^ +| +$/, "", s)
           if (s !~ /^[A-Z]/ || s !~ /[.!?]$/) continue
           if (s ~ /(^|[^A-Za-z])(sth|sb|so)\.|\/|\.\.\.|…/) continue
           if (split(s, w, " ") < 4 || seen[s]++) continue
           print s "\n"
         } }' "$d"
}

# The opening and closing lines of letters and e-mails ("Dear Mrs Ellis,",
# "Yours sincerely,"), 3,000 of them with names from the word list: none of
# the other text ends a line with a comma, so a model trained on it read every
# salutation's comma (and "yours", "sincerely") as an error (measured: 77 such
# commas among FCE dev's false alarms, 13 with these lines). Deterministic:
# the i-th line's form and name follow from i alone.
letter_lines() {
  local d=/usr/share/dict/american-english
  [ -r "$d" ] || die "$d missing: install the Debian package wamerican (deploy/install-deps.sh)"
  awk '/^[A-Z][a-z]+$/ { name[++k] = $0 }
       END {
         n = split("Dear Sir or Madam,|Dear Sir,|Dear Madam,|Dear Sir/Madam,|To whom it may concern,", open, "|")
         m = split("Yours sincerely,|Yours faithfully,|Best wishes,|With best wishes,|Kind regards," \
                   "|Best regards,|Many thanks,|Thank you,|Lots of love,|See you soon,|Take care,|All the best,", shut, "|")
         for (i = 0; i < 3000; i++) {
           f = i % 20; who = name[(i * 7919) % k + 1]
           if (f < 3) s = open[(int(i / 20) * 3 + f) % n + 1]
           else if (f < 6) s = "Dear Mr " who ","
           else if (f < 8) s = "Dear Mrs " who ","
           else if (f < 9) s = "Dear Ms " who ","
           else if (f < 12) s = "Dear " who ","
           else if (f < 13) s = "Hi " who ","
           else s = shut[i % m + 1]
           print s "\n"
         } }' "$d"
}

make_corpus() {
  local out=$1 w=/usr/share/wordnet
  local glosses=("$w/data.noun" "$w/data.verb" "$w/data.adj" "$w/data.adv")
  local fortunes
  mapfile -t fortunes < <(fortune_files)
  [ "${#fortunes[@]}" -ge 30 ] || die "/usr/share/games/fortunes: install the Debian packages fortunes and fortunes-min (deploy/install-deps.sh)"
  for p in "${glosses[@]}"; do
    [ -r "$p" ] || die "$p missing: install the Debian package wordnet-base (deploy/install-deps.sh)"
  done
  {
    awk 'FNR == 1 && t != "" { print t "\n"; t = "" }
         $0 == "%" { if (t != "") print t "\n"; t = ""; next }
         { gsub(/^[ \t]+|[ \t\r]+$/, ""); if ($0 != "") t = (t == "" ? $0 : t " " $0) }
         END { if (t != "") print t "\n" }' "${fortunes[@]}"
    awk 'FNR == 1 && NR > 1 { print "" }
         /^[0-9]/ { i = index($0, " | "); if (!i) next
                    g = substr($0, i + 3); gsub(/"/, "", g); gsub(/[ \t]+$/, "", g)
                    if (g != "") print g }' "${glosses[@]}"
    echo
    ding_sentences
  } >"$out.tmp"
  mv "$out.tmp" "$out"
}

# Whole sentences for the synthetic-error stage: the fortunes (already
# paragraphs), WordNet's quoted example sentences ("she ate the cake"), each
# of 3+ words a paragraph of its own, and the dictionary's example sentences
# twice (their everyday English is the closest to learners' of the three;
# measured with them: fewer false alarms on "was" and "a", FCE dev F0.5 at
# its best threshold 0.182 -> 0.192), and the lines that open and close letters. The glosses' definitions stay out: they
# are noun phrases without a verb ("any of various low aquatic herbs"), where
# verb and agreement errors have no place, and a model trained on them flagged
# learners' everyday words (measured: FCE dev oracle F0.5 0.147 -> 0.161).
make_sentences() {
  local out=$1 w=/usr/share/wordnet fortunes
  mapfile -t fortunes < <(fortune_files)
  {
    awk 'FNR == 1 && t != "" { print t "\n"; t = "" }
         $0 == "%" { if (t != "") print t "\n"; t = ""; next }
         { gsub(/^[ \t]+|[ \t\r]+$/, ""); if ($0 != "") t = (t == "" ? $0 : t " " $0) }
         END { if (t != "") print t "\n" }' "${fortunes[@]}"
    grep -h -o '"[^"]*"' "$w/data.noun" "$w/data.verb" "$w/data.adj" "$w/data.adv" |
      awk '{ gsub(/^"|"$/, ""); gsub(/^ +| +$/, "") } split($0, a, " ") >= 3 { print $0 "\n" }'
    ding_sentences
    ding_sentences
    letter_lines
  } >"$out.tmp"
  mv "$out.tmp" "$out"
}

# The trainer draws its own progress bar on a terminal (step, loss, tokens/s,
# ETA); elsewhere it prints progress lines, kept in LOG too.
run_logged() { # LOG COMMAND...
  local log=$1 rc=0
  shift
  if [ -t 2 ]; then
    "$@" || rc=$?
  else
    "$@" 2>&1 | tee "$log" >&2 || rc=$?
  fi
  [ "$rc" -eq 0 ] || die "failed (exit $rc): $*"
}

make_default_model() {
  if [ -d "$MODEL_DIR" ]; then
    rmdir "$MODEL_DIR" 2>/dev/null ||
      die "$MODEL_DIR exists but holds no config.json: not a model directory (move it away or set ELECTRA_MODEL_DIR)"
  fi
  local corpus=$BUILD/default-corpus.txt sents=$BUILD/default-sentences.txt out=$BUILD/default-ged
  say "No model at $MODEL_DIR: building a grammatical error detector in $MODEL_TIME from English text in Debian packages"
  mkdir -p "$BUILD"
  [ -s "$corpus" ] || make_corpus "$corpus"
  [ -s "$sents" ] || make_sentences "$sents"
  echo "  corpus: $corpus ($(wc -l <"$corpus") lines, $(($(wc -c <"$corpus") / 1024)) KiB: fortunes, WordNet glosses, dictionary sentences)" >&2
  rm -rf "$out" "$out.work"
  # --dictionary: hunspell's verdicts beside the model (a WordPiece model sees
  # a misspelling only as an unusual split), weighted and thresholded on the
  # synthetic dev data; the recipe writes quality.json (what the model is).
  # --ngram: CMU Sphinx's English trigram model (pocketsphinx-en-us) reads
  # beside hunspell: a word for which another preposition, another form of
  # it or an article before it is far likelier ("interested on", "We was")
  # counts as one hunspell rejects.
  # Agreement pairs in 70 % of the synthetic copies, on the recipe's relative
  # positions: with absolute positions the model learnt subject-verb agreement
  # only at the start of a sentence ("He go" flagged, "Every morning he go"
  # not); with both it flags it anywhere (docs/RESULTS.md §1b, seventh pass).
  run_logged "$BUILD/default-recipe.log" \
    "$TRAIN" recipe ged --out "$out" --corpus "$corpus" --synthetic-corpus "$sents" \
    --vocab-size "$VOCAB_SIZE" --time-limit "$MODEL_TIME" --synthetic-agreement-pairs 0.7 \
    --dictionary --ngram
  [ -f "$out/config.json" ] || die "the recipe wrote no $out/config.json"
  # Appears whole or not at all: a half-copied model would be served next time.
  mkdir -p "$(dirname "$MODEL_DIR")"
  rm -rf "$MODEL_DIR.tmp"
  cp -r "$out" "$MODEL_DIR.tmp"
  mv "$MODEL_DIR.tmp" "$MODEL_DIR"
  say "Default model ready: $MODEL_DIR (stages: $out.work)"
}

[ -x "$SERVER" ] && [ -x "$TRAIN" ] || die "$SERVER or $TRAIN missing: run make first"
[ -f "$MODEL_DIR/config.json" ] || make_default_model

# ---- 2. serve ----

# First entry of "architectures" in DIR/config.json (the JSON may span lines).
arch_of() { tr -d ' \t\r\n' <"$1/config.json" | sed -n 's/.*"architectures":\["\([A-Za-z]*\)".*/\1/p'; }
task_of() {
  case $(arch_of "$1") in
    ElectraForPreTraining | ElectraForTokenClassification) echo score ;;
    ElectraForSequenceClassification) echo classify ;;
    ElectraForQuestionAnswering) echo qa ;; *) echo "" ;;
  esac
}
models=(--model "default=$MODEL_DIR")
declare -A task_model=()
t=$(task_of "$MODEL_DIR")
[ -n "$t" ] || die "$MODEL_DIR: architecture '$(arch_of "$MODEL_DIR")' has no route (want ElectraForPreTraining, ...ForTokenClassification, ...ForSequenceClassification or ...ForQuestionAnswering)"
task_model[$t]=default
for d in models/*/; do
  d=${d%/}
  [ -f "$d/config.json" ] && [ "$(cd "$d" && pwd)" != "$(cd "$MODEL_DIR" && pwd)" ] || continue
  # ELECTRA_MODEL_DIR elsewhere is "default" instead of models/default
  [ "$(basename "$d")" != default ] || continue
  t=$(task_of "$d")
  [ -n "$t" ] || continue # e.g. a masked-LM generator: no route serves it
  models+=(--model "$(basename "$d")=$d")
  [ -n "${task_model[$t]:-}" ] || task_model[$t]=$(basename "$d")
done

say "Starting electra-server on http://127.0.0.1:$PORT (${models[*]})"
"$SERVER" "${models[@]}" --host 127.0.0.1 --port "$PORT" &
spid=$!
trap 'kill -TERM "$spid" 2>/dev/null' INT TERM
# Ready when /info says ready with this server's pid: whatever else holds the
# port may answer (our server then exits "cannot listen"), or accept and never
# answer (hence curl's timeout).
up=0
for _ in $(seq 600); do
  kill -0 "$spid" 2>/dev/null || break
  info=$(curl -s --max-time 2 "http://127.0.0.1:$PORT/info" 2>/dev/null) || info=
  if grep -q "\"pid\":$spid," <<<"$info" && grep -q '"ready":true' <<<"$info"; then up=1; break; fi
  sleep 0.2
done
if [ "$up" -ne 1 ]; then
  if ! kill -0 "$spid" 2>/dev/null; then
    rc=0; wait "$spid" || rc=$?
    # stopped (SIGTERM/Ctrl-C) before this loop saw it ready: drained (0), or
    # killed by the signal before its handlers were in place (128 + 15 or 2)
    case $rc in 0|143|130) say "electra-server stopped before it was ready"; exit 0 ;; esac
    die "electra-server exited (status $rc) before it was ready: port $PORT taken by another process? (its message is above; set ELECTRA_PORT=...)"
  fi
  kill -TERM "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  die "electra-server (pid $spid) did not become ready on port $PORT within 2 minutes"
fi

u=http://127.0.0.1:$PORT
j="-H 'Content-Type: application/json'"

# One real /score answer, word by word: "She 0.04  go 0.81 *  to 0.02 ...",
# a star on the words flagged at the model's own threshold.
show_score() { # TEXT
  local body
  body=$(curl -s "$u/score" -H 'Content-Type: application/json' -d "{\"text\": \"$1\"}") || return 0
  printf '  %s\n   ' "$1"
  grep -o '"word":"[^"]*","start":[0-9]*,"end":[0-9]*,"prob":[-0-9.e]*,"flagged":[a-z]*' <<<"$body" |
    sed 's/"word":"\([^"]*\)".*"prob":\([-0-9.e]*\),"flagged":\([a-z]*\)/\1 \2 \3/' |
    awk '{ printf " %s %.2f%s ", $1, $2, ($3 == "true" ? " *" : "") } END { print "" }'
}
# What the default model says it is (quality.json, written by the recipe from
# its dev scores): its class, "demo" or "detector", and its F0.5 beside
# hunspell's; its FCE figures are in docs/RESULTS.md.
quality=
if [ -f "$MODEL_DIR/quality.json" ]; then
  quality=$(tr -d '\n' <"$MODEL_DIR/quality.json" | sed -n 's/.*"summary":[[:space:]]*"\([^"]*\)".*/\1/p')
fi
# asked before the banner, so the server's access-log lines do not land inside it
answers=
if [ -n "${task_model[score]:-}" ]; then
  answers=$(for t in "She go to school yesterday." "The chef cooked the meal and then he eat it." \
                     "The cat sat on the mat."; do show_score "$t"; done)
  sleep 0.2
fi
{
  echo
  say "Ready. Try (Ctrl-C stops the server):"
  if [ -n "${task_model[score]:-}" ]; then
    echo "  # grammatical error detection: P(error) per word, * = flagged at the model's threshold"
    if [ -n "$quality" ]; then echo "  # the default model: $quality; on learners' English see docs/RESULTS.md"; fi
    printf '%s\n' "$answers"
    echo "  curl -s $u/score $j -d '{\"text\": \"The chef cooked the meal and then he eat it.\"}'"
  fi
  echo "  curl -s $u/tokenize $j -d '{\"text\": \"Unaffable tokenization\"}'"
  if [ -n "${task_model[classify]:-}" ]; then
    echo "  curl -s $u/classify $j -d '{\"text\": \"A gripping, beautifully made film.\"}'"
  fi
  if [ -n "${task_model[qa]:-}" ]; then
    echo "  curl -s $u/qa $j -d '{\"question\": \"Who wrote Hamlet?\", \"context\": \"Hamlet is a tragedy written by William Shakespeare.\"}'"
  fi
  if [ -z "${task_model[classify]:-}" ] || [ -z "${task_model[qa]:-}" ]; then
    echo "  # /classify and /qa need fine-tuned models: electra-train finetune ... --out models/NAME,"
    echo "  # then make run serves every models/*/ directory too (see README)"
  fi
  echo "  curl -s $u/info; curl -s $u/metrics | head; open $u/ in a browser; API: $u/openapi.json"
  echo
} >&2
rc=0
wait "$spid" || rc=$?
# A signal interrupts the first wait; the server is draining: wait for it.
if kill -0 "$spid" 2>/dev/null; then wait "$spid" || rc=$?; fi
exit "$rc"
