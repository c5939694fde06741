#!/usr/bin/env bash
# electra-server's papercuts (issue 40): --api-key-file's help names every
# route that stays open and --max-response-bytes' help every route it limits
# (both read from server/http.c's route table); /tokenize marks a [SEP] typed
# in the text "special": true (read as special) or its pieces false (read as
# text), as the schema's description says; the start-up line names the
# model's dtype (int8 too, when built with oneDNN); a truncated --config file
# gets config.json's "invalid JSON near byte N". Runtime: ~10 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
SRV=$BUILD/bin/electra-server
. tests/tap.sh
[ -x "$SRV" ] || { bad "$SRV not built"; exit 1; }
T=$(mktemp -d /tmp/el_srv_papercuts.XXXXXX)
spid=""
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; rm -rf "$T"' EXIT

# ---- help against the route table ----
help=$("$SRV" --help)
keyhelp=$(awk '/--api-key-file/ { on = 1; next } on && /^  --/ { exit } on' <<<"$help" | tr '\n' ' ')
for r in $(sed -n 's/^ *{"\(\/[^"]*\)", EL_ROUTE_[A-Z0-9_]*, 0, 1},.*/\1/p' server/http.c); do
  case $r in /v2/health/*) r=/v2/health/ ;; esac
  check "--api-key-file help names the open route $r" grep -qE "(GET |, )${r}(,| |\*|\))" <<<"$keyhelp"
done
resphelp=$(awk '/--max-response-bytes/ { on = 1; next } on && /^  --/ { exit } on' <<<"$help" | tr '\n' ' ')
for r in $(sed -n 's/^ *{"\(\/[^"]*\)", EL_ROUTE_[A-Z0-9_]*, 1, [01]},.*/\1/p' server/http.c); do
  check "--max-response-bytes help names $r (every POST answer is limited)" grep -q "$r[ ,]" <<<"$resphelp"
done

# a truncated --config file: the message config.json gets (engine/jsonfile.c)
printf '{"port": 80' >"$T/trunc.json"
msg=$("$SRV" --config "$T/trunc.json" --model "x=$T/none" 2>&1 | tail -1)
check "a truncated --config: invalid JSON near byte 10 ($msg)" \
  grep -q "$T/trunc.json: invalid JSON near byte 10\$" <<<"$msg"

# ---- a served tiny model ----
if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "no torch at $PY: cannot make the tiny checkpoint"; exit $((fails > 0))
fi
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/tiny" >/dev/null ||
  { bad "make_checkpoint.py failed"; exit 1; }
serve() { # LOG ARGS...: starts the server, waits for /ready; sets spid, port
  local log=$1; shift
  port=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  "$SRV" --host 127.0.0.1 --port "$port" "$@" >"$log" 2>&1 &
  spid=$!
  for _ in $(seq 100); do
    curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$port/ready" && return 0
    kill -0 "$spid" 2>/dev/null || break
    sleep 0.1
  done
  return 1
}
stop() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; spid=""; }

mkdir "$T/cut" && cp "$T/tiny"/* "$T/cut/" && head -c 40 "$T/tiny/config.json" >"$T/cut/config.json"
msg=$("$SRV" --model "x=$T/cut" --port 0 2>&1 | tail -1)
check "a truncated config.json: the same message ($msg)" \
  grep -qE "$T/cut/config.json: invalid JSON near byte [0-9]+\$" <<<"$msg"
serve "$T/fp32.log" --model "m=$T/tiny" || { bad "the server did not start"; sed 's/^/#   /' "$T/fp32.log"; exit 1; }
tokens() { curl -s --max-time 5 "http://127.0.0.1:$port/tokenize" -H 'Content-Type: application/json' -d "$1"; }
out=$(tokens '{"text": "good [SEP] that"}')
check "a typed [SEP] read as special is \"special\": true with its place in the text" \
  grep -q '"token":"\[SEP\]","start":5,"end":10,"special":true' <<<"$out"
check "the added [CLS] and [SEP] are special, at 0-0" \
  eval "grep -q '\"token\":\"\[CLS\]\",\"start\":0,\"end\":0,\"special\":true' <<<'$out' &&
        grep -q '\"token\":\"\[SEP\]\",\"start\":0,\"end\":0,\"special\":true' <<<'$out'"
check "word pieces are not special" grep -q '"token":"good","start":0,"end":4,"special":false' <<<"$out"
out=$(tokens '{"text": "good [SEP] that", "special_tokens_in_text": false}')
check "read as text, [SEP]'s pieces are not special" \
  eval "! grep -q '\"start\":5,\"end\":10' <<<'$out' && grep -q '\"start\":5,\"end\":6,\"special\":false' <<<'$out'"
check "the start-up line names the dtype (fp32)" grep -q 'model m: .*parameters (fp32, ' "$T/fp32.log"
stop
if "$SRV" --help | grep -q 'int8' && serve "$T/int8.log" --model "m=$T/tiny" --dtype int8; then
  check "the start-up line of an int8 model says int8" grep -q 'model m: .*parameters (int8, ' "$T/int8.log"
  stop
else
  skip "no int8 here (built without oneDNN): int8 start-up line not checked"
fi
exit $((fails > 0))
