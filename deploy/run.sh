#!/usr/bin/env bash
# `make run` (after the build): serve a model on 127.0.0.1, first making a
# default one when there is none, then print curl examples. Ctrl-C stops it.
#
#   ELECTRA_MODEL_DIR           model to serve as "default" (models/default); any
#                               HF ELECTRA directory. Made here when it has no
#                               config.json: a short pretraining run of the
#                               `tiny` preset on English text from Debian packages
#                               (fortunes-min, wordnet-base)
#   ELECTRA_DEFAULT_MODEL_TIME  time limit of that run (5m; 60s for a quick look)
#   ELECTRA_DEFAULT_VOCAB_SIZE  its WordPiece vocabulary size (8000)
#   ELECTRA_PORT                port (8080)
# Other model directories under models/ (fine-tuned classifiers, QA models)
# are served too, each under its directory's name.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
MODEL_DIR=${ELECTRA_MODEL_DIR:-models/default}
MODEL_TIME=${ELECTRA_DEFAULT_MODEL_TIME:-5m}
VOCAB_SIZE=${ELECTRA_DEFAULT_VOCAB_SIZE:-8000}
PORT=${ELECTRA_PORT:-8080}
TRAIN=$BUILD/bin/electra-train
SERVER=$BUILD/bin/electra-server
say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
[ -t 2 ] || say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'run: %s\n' "$*" >&2; exit 1; }

# ---- 1. the default model ----

# Plain-text lines from Debian's English text: each fortune joined onto one
# line, each WordNet gloss (definition; "example sentence") on one line.
make_corpus() {
  local out=$1 f=/usr/share/games/fortunes w=/usr/share/wordnet
  local fortunes=("$f/fortunes" "$f/literature" "$f/riddles")
  local glosses=("$w/data.noun" "$w/data.verb" "$w/data.adj" "$w/data.adv")
  for p in "${fortunes[@]}" "${glosses[@]}"; do
    [ -r "$p" ] || die "$p missing: install the Debian packages fortunes-min and wordnet-base (deploy/install-deps.sh)"
  done
  {
    awk '$0 == "%" { if (t != "") print t; t = ""; next }
         { gsub(/^[ \t]+|[ \t\r]+$/, ""); if ($0 != "") t = (t == "" ? $0 : t " " $0) }
         END { if (t != "") print t }' "${fortunes[@]}"
    awk '/^[0-9]/ { i = index($0, " | "); if (!i) next
                    g = substr($0, i + 3); gsub(/"/, "", g); gsub(/[ \t]+$/, "", g)
                    if (g != "") print g }' "${glosses[@]}"
  } >"$out.tmp"
  mv "$out.tmp" "$out"
}

# "90", "90s", "5m", "2h" -> seconds
to_secs() {
  case $1 in
    *h) echo $((${1%h} * 3600)) ;; *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;;
  esac
}

# Runs the trainer in the background and draws a bar from the elapsed share
# of the time limit, with the trainer's latest line beside it (its own log
# goes to a file). Without a terminal: one line per 10 %.
train_with_progress() { # limit_secs log command...
  local limit=$1 log=$2; shift 2
  "$@" >"$log" 2>&1 &
  local pid=$! t0=$SECONDS width=30 last_decile=-1
  trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; echo >&2; die "interrupted; no model written"' INT TERM
  while kill -0 "$pid" 2>/dev/null; do
    local el=$((SECONDS - t0)) pct fill line
    pct=$((limit > 0 ? el * 100 / limit : 0)); [ "$pct" -gt 99 ] && pct=99
    fill=$((pct * width / 100))
    line=$(tr '\r' '\n' <"$log" | grep -v '^[[:space:]]*$' | tail -1 | cut -c1-60 || true)
    if [ -t 2 ]; then
      printf '\r  [%-*s] %3d%%  %d:%02d/%d:%02d  %-60s' "$width" "$(printf '%*s' "$fill" '' | tr ' ' '#')" \
        "$pct" $((el / 60)) $((el % 60)) $((limit / 60)) $((limit % 60)) "$line" >&2
    elif [ $((pct / 10)) -gt "$last_decile" ]; then
      last_decile=$((pct / 10))
      printf '  %3d%%  %d:%02d  %s\n' "$pct" $((el / 60)) $((el % 60)) "$line" >&2
    fi
    sleep 1
  done
  local rc=0
  wait "$pid" || rc=$?
  trap - INT TERM
  if [ -t 2 ]; then
    printf '\r  [%s] 100%%  %d:%02d%*s\n' "$(printf '%*s' "$width" '' | tr ' ' '#')" \
      $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) 62 '' >&2
  else
    printf '  100%%  %d:%02d  done\n' $(((SECONDS - t0) / 60)) $(((SECONDS - t0) % 60)) >&2
  fi
  if [ "$rc" -ne 0 ]; then
    tail -20 "$log" >&2
    die "training failed (exit $rc); full log: $log"
  fi
}

make_default_model() {
  local corpus=$BUILD/default-corpus.txt vocab=$BUILD/default-vocab.txt run=$BUILD/default-run
  local secs
  secs=$(to_secs "$MODEL_TIME")
  [[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || die "ELECTRA_DEFAULT_MODEL_TIME=$MODEL_TIME: want e.g. 90s, 5m, 1h"
  say "No model at $MODEL_DIR: pretraining a tiny ELECTRA for $MODEL_TIME on English text from Debian packages"
  mkdir -p "$BUILD"
  [ -s "$corpus" ] || make_corpus "$corpus"
  echo "  corpus: $corpus ($(wc -l <"$corpus") lines, $(($(wc -c <"$corpus") / 1024)) KiB: fortunes + WordNet glosses)" >&2
  if [ ! -s "$vocab" ]; then
    "$TRAIN" vocab --input "$corpus" --vocab-size "$VOCAB_SIZE" --out "$vocab" >"$BUILD/default-vocab.log" 2>&1 ||
      { cat "$BUILD/default-vocab.log" >&2; die "vocabulary failed"; }
  fi
  echo "  vocabulary: $vocab ($(wc -l <"$vocab") entries)" >&2
  rm -rf "$run"
  train_with_progress "$secs" "$BUILD/default-pretrain.log" \
    "$TRAIN" pretrain --input "$corpus" --vocab "$vocab" --out "$run" --preset tiny --time-limit "$MODEL_TIME"
  [ -f "$run/discriminator/config.json" ] || die "the pretraining run wrote no $run/discriminator/config.json"
  # Appears whole or not at all: a half-copied model would be served next time.
  mkdir -p "$(dirname "$MODEL_DIR")"
  rm -rf "$MODEL_DIR.tmp"
  cp -r "$run/discriminator" "$MODEL_DIR.tmp"
  mv "$MODEL_DIR.tmp" "$MODEL_DIR"
  echo "  model: $MODEL_DIR (log: $BUILD/default-pretrain.log)" >&2
}

[ -x "$SERVER" ] && [ -x "$TRAIN" ] || die "$SERVER or $TRAIN missing: run make first"
[ -f "$MODEL_DIR/config.json" ] || make_default_model

# ---- 2. serve ----

arch_of() { sed -n 's/.*"architectures"[^"]*"\([A-Za-z]*\)".*/\1/p' "$1/config.json" | head -1; }
task_of() {
  case $(arch_of "$1") in
    ElectraForPreTraining) echo score ;; ElectraForSequenceClassification) echo classify ;;
    ElectraForQuestionAnswering) echo qa ;; *) echo "" ;;
  esac
}
models=(--model "default=$MODEL_DIR")
declare -A task_model=()
t=$(task_of "$MODEL_DIR")
[ -n "$t" ] || die "$MODEL_DIR: architecture '$(arch_of "$MODEL_DIR")' has no route (want ElectraForPreTraining, ...ForSequenceClassification or ...ForQuestionAnswering)"
task_model[$t]=default
for d in models/*/; do
  d=${d%/}
  [ -f "$d/config.json" ] && [ "$(cd "$d" && pwd)" != "$(cd "$MODEL_DIR" && pwd)" ] || continue
  t=$(task_of "$d")
  [ -n "$t" ] || continue # e.g. a masked-LM generator: no route serves it
  models+=(--model "$(basename "$d")=$d")
  [ -n "${task_model[$t]:-}" ] || task_model[$t]=$(basename "$d")
done

say "Starting electra-server on http://127.0.0.1:$PORT (${models[*]})"
"$SERVER" "${models[@]}" --host 127.0.0.1 --port "$PORT" &
spid=$!
trap 'kill -TERM "$spid" 2>/dev/null' INT TERM
up=0
for _ in $(seq 600); do
  kill -0 "$spid" 2>/dev/null || break
  if curl -sf -o /dev/null "http://127.0.0.1:$PORT/ready"; then up=1; break; fi
  sleep 0.2
done
if [ "$up" -ne 1 ]; then
  kill -TERM "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  die "the server did not become ready (port $PORT taken? set ELECTRA_PORT=...)"
fi

u=http://127.0.0.1:$PORT
j="-H 'Content-Type: application/json'"
{
  echo
  say "Ready. Try (Ctrl-C stops the server):"
  if [ -n "${task_model[score]:-}" ]; then
    echo "  # which words look replaced (grammatical error detection): per-token and per-word probabilities"
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
