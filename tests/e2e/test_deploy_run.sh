#!/usr/bin/env bash
# deploy/run.sh (the `make run` step after the build), without the slow
# pretraining (make fresh-test covers that): the corpus step turns the
# Debian packages' text into plain lines; an existing models/default is
# served at once together with every other servable models/*/ directory
# (a masked-LM generator is left out); curl examples are printed for the
# tasks that have a model; the printed /classify and /qa work; SIGTERM ends
# it with status 0; a port held by another process (answering or silent) fails
# with a message instead of a banner or a hang; a directory that is not a
# model is refused.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
. tests/tap.sh
top=$(pwd)
tmp=$(mktemp -d /tmp/el-deploy-run-XXXXXX)
rpid=""
cleanup() {
  [ -n "$rpid" ] && kill "$rpid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- the corpus ----
if [ -r /usr/share/games/fortunes/people ] && [ -r /usr/share/wordnet/data.noun ] && [ -r /usr/share/trans/de-en ]; then
  # shellcheck disable=SC1090
  (die() { echo "$*"; exit 1; }
   source <(sed -n '/^fortune_files()/,/^}/p; /^ding_sentences()/,/^}/p; /^letter_lines()/,/^}/p; /^make_corpus()/,/^}/p; /^make_sentences()/,/^}/p' deploy/run.sh)
   make_corpus "$tmp/corpus.txt" && make_sentences "$tmp/sentences.txt")
  n=$(grep -c . "$tmp/corpus.txt")
  check "corpus has over 100000 text lines ($n)" test "$n" -gt 100000
  check "no WordNet record syntax left (synset offsets and pointers)" \
    sh -c "! grep -qE '^[0-9]{8} [0-9]{2} [nvasr] ' '$tmp/corpus.txt'"
  check "fortunes are documents of their own (blank line after each)" \
    test "$(grep -c '^$' "$tmp/corpus.txt")" -gt 500
  check "WordNet glosses present (\"a young person\")" grep -q 'a young person' "$tmp/corpus.txt"
  check "every English fortune file is read (the package fortunes' \"people\" file too)" \
    grep -q -F "$(grep -m1 -v '^%' /usr/share/games/fortunes/people | sed 's/^[ \t]*//; s/[ \t\r]*$//')" "$tmp/corpus.txt"
  s=$(grep -c . "$tmp/sentences.txt")
  check "synthetic-stage sentences: over 50000 paragraphs ($s)" test "$s" -gt 50000
  check "sentences hold WordNet's example sentences, unquoted" \
    grep -qx 'I can breathe better when the air is clean' "$tmp/sentences.txt"
  check "sentences leave out the glosses' definitions (\"a young person\")" \
    sh -c "! grep -q '^a young person' '$tmp/sentences.txt'"
  d=$(grep -cx 'I was only joking.' "$tmp/sentences.txt")
  check "the dictionary's example sentences, twice each (\"I was only joking.\": $d)" test "$d" -eq 2
  check "... with plain apostrophes (\"I can't work miracles.\")" \
    grep -qx "I can't work miracles." "$tmp/sentences.txt"
  check "... without its notes (\"Have a check [Br.] in your car first ...\")" \
    grep -qx "Have a check in your car first and see if it's there." "$tmp/sentences.txt"
  check "the corpus holds them too" grep -qx 'I was only joking.' "$tmp/corpus.txt"
  l=$(grep -c '^Dear Mr [A-Z][a-z]*,$' "$tmp/sentences.txt")
  check "letters' opening lines with names (\"Dear Mr NAME,\": $l)" test "$l" -eq 450
  check "... and closing lines (\"Yours sincerely,\")" grep -qx 'Yours sincerely,' "$tmp/sentences.txt"
else
  echo "ok - # SKIP fortunes / wordnet-base / trans-de-en not installed: corpus step not checked"
fi

# ---- serving what exists ----
if [ ! -x "$BUILD/bin/electra-server" ] || ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP electra-server not built or no torch for test checkpoints"
  exit $((fails > 0))
fi
repo=$tmp/repo
mkdir -p "$repo/deploy" "$repo/models" "$repo/build/bin"
cp deploy/run.sh "$repo/deploy/"
ln -s "$top/$BUILD/bin/electra-server" "$top/$BUILD/bin/electra-train" "$repo/build/bin/"
mk() { "$PYTHON" tests/reference/make_checkpoint.py --arch "$1" --out "$repo/models/$2" >/dev/null; }
mk pretraining default && mk cls sst2 && mk qa squad && mk mlm generator ||
  { nok "make_checkpoint.py"; exit 1; }
port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# wait_banner LOG: until run.sh ($rpid) has printed its whole banner, which
# ends with the API line (after 'Ready. Try' it runs its /score examples
# first), or has exited
wait_banner() {
  for _ in $(seq 150); do
    grep -q 'API: http' "$1" && break
    kill -0 "$rpid" 2>/dev/null || break
    sleep 0.2
  done
}
ELECTRA_PORT=$port BUILD=build "$repo/deploy/run.sh" >"$tmp/log" 2>&1 &
rpid=$!
wait_banner "$tmp/log"
check "run.sh starts the server and prints 'Ready. Try'" grep -q 'Ready. Try' "$tmp/log"
check "no training when models/default exists" sh -c "! grep -q pretraining '$tmp/log'"
check "serves default, sst2 and squad" grep -qE -- '--model default=models/default.*--model squad=models/squad.*--model sst2=models/sst2' "$tmp/log"
check "leaves out the masked-LM generator (no route)" sh -c "! grep -q 'generator=' '$tmp/log'"
for r in score tokenize classify qa; do
  check "curl example for /$r printed" grep -q "curl -s http://127.0.0.1:$port/$r " "$tmp/log"
done
# Run the printed /classify and /qa examples as printed.
for r in classify qa; do
  cmd=$(grep -o "curl -s http://127.0.0.1:$port/$r .*" "$tmp/log" | head -1)
  out=$(eval "$cmd" 2>/dev/null)
  check "printed /$r example answers with a model ($(head -c 80 <<<"$out"))" grep -q '"model"' <<<"$out"
done
# stop_server: SIGTERM to run.sh's electra-server child as soon as it exists
# (no ps needed: minimal Debian has no procps), then run.sh's exit status in
# rc (124: still running after 10 s).
stop_server() {
  local spid="" c
  for _ in $(seq 1000); do
    for c in $(cat /proc/"$rpid"/task/*/children 2>/dev/null); do
      [ "$(cat /proc/"$c"/comm 2>/dev/null)" = electra-server ] && spid=$c
    done
    [ -n "$spid" ] && break
    sleep 0.005
  done
  [ -n "$spid" ] && kill -TERM "$spid"
  rc=124
  for _ in $(seq 100); do
    if ! kill -0 "$rpid" 2>/dev/null; then rc=0; wait "$rpid" || rc=$?; break; fi
    sleep 0.1
  done
  rpid=""
}
stop_server
check "SIGTERM to the server: run.sh exits 0 (got $rc)" test "$rc" -eq 0

# SIGTERM to the server the moment it exists, before run.sh has seen it ready
# (a quick Ctrl-C, or a supervisor stopping it): a clean stop, not "did not
# become ready within 2 minutes" and exit 1.
ELECTRA_PORT=$port BUILD=build "$repo/deploy/run.sh" >"$tmp/log2" 2>&1 &
rpid=$!
stop_server
check "SIGTERM to the server as it starts: run.sh exits 0 (got $rc)" test "$rc" -eq 0
check "... and does not claim it never became ready" sh -c "! grep -q 'did not become ready' '$tmp/log2'"

# ELECTRA_MODEL_DIR elsewhere while models/default exists: that model is
# "default", models/default is left out (two models named default: the
# server refused to start).
cp -r "$repo/models/default" "$tmp/other"
ELECTRA_MODEL_DIR=$tmp/other ELECTRA_PORT=$port BUILD=build "$repo/deploy/run.sh" >"$tmp/log4" 2>&1 &
rpid=$!
wait_banner "$tmp/log4"
check "ELECTRA_MODEL_DIR elsewhere with a models/default: it serves as default, models/default left out" \
  sh -c "grep -q 'Ready. Try' '$tmp/log4' && grep -q -- '--model default=$tmp/other' '$tmp/log4' && ! grep -q 'default=models/default' '$tmp/log4'"
stop_server

# The port held by another process: one that accepts and never answers (make
# run hung on it), one that answers HTTP (make run printed its answers as
# ours). run.sh must fail, naming the port, without a banner.
for holder in silent http; do
  hport=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$PYTHON" - "$hport" "$holder" <<'EOF2' &
import http.server, socket, sys, time
port, kind = int(sys.argv[1]), sys.argv[2]
if kind == "http":
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b'{"ready":true,"pid":1}')
        do_POST = do_GET
        def log_message(self, *a): pass
    http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(16)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)  # never answers
EOF2
  hpid=$!
  for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$hport) 2>/dev/null && break; sleep 0.1; done
  t0=$(date +%s)
  ELECTRA_PORT=$hport BUILD=build timeout 60 "$repo/deploy/run.sh" >"$tmp/log3" 2>&1
  rc=$? dt=$(($(date +%s) - t0))
  kill "$hpid" 2>/dev/null; wait "$hpid" 2>/dev/null
  check "port held by a $holder process: run.sh fails in ${dt}s (rc $rc, not 124), naming the port" \
    eval "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'port $hport taken' '$tmp/log3'"
  check "... and prints no 'Ready' banner" eval "! grep -q 'Ready' '$tmp/log3'"
done

mkdir -p "$tmp/notamodel/sub"
ELECTRA_MODEL_DIR=$tmp/notamodel BUILD=build "$repo/deploy/run.sh" >"$tmp/log2" 2>&1
rc=$?
check "a non-empty directory without config.json is refused (rc $rc)" \
  sh -c "[ $rc -ne 0 ] && grep -q 'no config.json' '$tmp/log2'"
exit $((fails > 0))
