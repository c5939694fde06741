#!/usr/bin/env bash
# deploy/electra-server.service: `systemd-analyze verify` passes, the
# `systemd-analyze security --offline=true` exposure is <= 2.0 ("OK" or
# better), the settings the issue asks for are there, every ELECTRA_* name in
# deploy/electra-server.env is a real option, and the real server sends the
# sd_notify messages (READY=1 once /ready answers 200, WATCHDOG=1,
# RELOADING=1 + READY=1 on SIGHUP, STOPPING=1 on SIGTERM) to a fake
# $NOTIFY_SOCKET.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
UNIT=deploy/electra-server.service
ENVF=deploy/electra-server.env
. tests/tap.sh

tmp=$(mktemp -d /tmp/el-deploy-systemd-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- static checks of the unit ----
key() { sed -n "s/^$1=//p" "$UNIT"; }
check "unit: Type=notify" test "$(key Type)" = notify
check "unit: ExecReload sends SIGHUP" grep -Eq '^ExecReload=/bin/kill -HUP \$MAINPID$' "$UNIT"
check "unit: DynamicUser=yes" test "$(key DynamicUser)" = yes
check "unit: Restart=on-failure" test "$(key Restart)" = on-failure
# the int8 drop-in lifts MemoryDenyWriteExecute alone (oneDNN's run-time kernels) and
# asks for int8; every other hardening setting stays the unit's
DROPIN=deploy/electra-server-int8.conf
check "int8 drop-in: [Service] with MemoryDenyWriteExecute=no and ELECTRA_DTYPE=int8, nothing else" \
  eval "[ \"\$(grep -v '^#' $DROPIN | grep -v '^\$')\" = \"\$(printf '[Service]\nMemoryDenyWriteExecute=no\nEnvironment=ELECTRA_DTYPE=int8')\" ]"
check "unit: EnvironmentFile is optional /etc/electra/electra-server.env" \
  test "$(key EnvironmentFile)" = "-/etc/electra/electra-server.env"
for k in MemoryMax LimitNOFILE WatchdogSec ProtectSystem CapabilityBoundingSet SystemCallFilter \
  RestrictAddressFamilies NoNewPrivileges; do
  check "unit: $k= set" grep -q "^$k=" "$UNIT"
done
secs() { # systemd time span ("45s", "1min", "2min 30s", "90") -> seconds
  local v=$1 total=0 n u
  while [[ $v =~ ^[[:space:]]*([0-9]+)[[:space:]]*([a-z]*)(.*)$ ]]; do
    n=${BASH_REMATCH[1]} u=${BASH_REMATCH[2]} v=${BASH_REMATCH[3]}
    case $u in "" | s | sec) ;; min | m) n=$((n * 60)) ;; h) n=$((n * 3600)) ;; *) echo -1; return ;; esac
    total=$((total + n))
  done
  echo "$total"
}
stop=$(secs "$(key TimeoutStopSec)")
drain=$(sed -n 's/.*ELECTRA_DRAIN_TIMEOUT=\([0-9]*\).*/\1/p' "$UNIT" "$ENVF" | tail -1)
drain=${drain:-30}
check "unit: TimeoutStopSec ${stop}s > drain timeout ${drain}s" test "$stop" -gt "$drain"
wd=$(secs "$(key WatchdogSec)")
check "unit: WatchdogSec ${wd}s >= 10s (WATCHDOG=1 is sent every half of it)" test "$wd" -ge 10

# ---- the environment file: every variable is an option of the binary ----
server=$BUILD/bin/electra-server
if [ -x "$server" ] && help=$("$server" --help 2>&1); then
  names=$(sed -n 's/^#\{0,1\}\(ELECTRA_[A-Z_]*\)=.*/\1/p' "$ENVF" "$UNIT" | sort -u)
  for n in $names; do
    flag=--$(echo "${n#ELECTRA_}" | tr 'A-Z_' 'a-z-')
    check "env file: $n is $flag in electra-server --help" grep -q -- "$flag\b" <<<"$help"
  done
else
  skip "$server not built: env names not checked against --help"
fi

# ---- systemd-analyze ----
if ! command -v systemd-analyze >/dev/null; then
  skip "systemd-analyze not installed (Debian package systemd): verify/security not run"
else
  # verify insists that ExecStart's binary exists: point it at a copy.
  stub=$tmp/bin/electra-server
  mkdir -p "$tmp/bin" "$tmp/unit"
  if [ -x "$server" ]; then cp "$server" "$stub"; else cp /bin/true "$stub"; fi
  sed "s|/usr/local/bin/electra-server|$stub|" "$UNIT" >"$tmp/unit/electra-server.service"
  out=$(cd "$tmp/unit" && systemd-analyze verify ./electra-server.service 2>&1)
  rc=$?
  check "systemd-analyze verify exits 0 (rc $rc)" test "$rc" -eq 0
  check "systemd-analyze verify prints no warning about the unit" \
    test -z "$(grep -i 'electra-server' <<<"$out")"
  [ -n "$out" ] && sed 's/^/#   /' <<<"$out"
  sec=$(cd "$tmp/unit" && systemd-analyze security --offline=true ./electra-server.service 2>&1)
  line=$(grep 'Overall exposure level' <<<"$sec")
  score=$(sed -n 's/.*: \([0-9][0-9]*\.[0-9]*\) .*/\1/p' <<<"$line")
  echo "# $line"
  if [ -z "$score" ]; then
    nok "systemd-analyze security printed an exposure level"
    sed 's/^/#   /' <<<"$sec" | tail -5
  else
    check "exposure $score <= 2.0 (OK or better)" awk -v s="$score" 'BEGIN { exit !(s <= 2.0) }'
  fi
fi

# ---- sd_notify from the real server ----
if [ ! -x "$server" ]; then
  skip "$server not built: sd_notify messages of the server not checked"
  exit $((fails > 0))
fi
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  skip "$PYTHON has no torch: cannot make the test checkpoint"
  exit $((fails > 0))
fi
"$PYTHON" tests/reference/make_checkpoint.py --arch pretraining --out "$tmp/model" >/dev/null ||
  { nok "make_checkpoint.py --arch pretraining"; exit 1; }

# The fake systemd end: one line per datagram, newlines inside shown as '|'.
cat >"$tmp/listen.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(120)
with open(sys.argv[2], "a", buffering=1) as f:
    while True:
        try:
            msg = s.recv(4096)
        except socket.timeout:
            break
        f.write(msg.decode(errors="replace").replace("\n", "|") + "\n")
EOF
"$PYTHON" "$tmp/listen.py" "$tmp/notify" "$tmp/messages" &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/notify" ] && break; sleep 0.1; done
port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
NOTIFY_SOCKET=$tmp/notify WATCHDOG_USEC=2000000 "$server" --model "default=$tmp/model" \
  --host 127.0.0.1 --port "$port" --drain-timeout 5 >"$tmp/server.log" 2>&1 &
spid=$!
pids+=($spid)

# wait_msg PATTERN SECONDS [FROM_LINE]: a message line matching PATTERN after line FROM_LINE
wait_msg() {
  local t=$(( $2 * 10 )) from=${3:-0}
  while [ $t -gt 0 ]; do
    tail -n +$((from + 1)) "$tmp/messages" 2>/dev/null | grep -Eq "$1" && return 0
    sleep 0.1; t=$((t - 1))
  done
  return 1
}
nmsg() { wc -l <"$tmp/messages" 2>/dev/null || echo 0; }

if wait_msg '(^|\|)READY=1' 60; then
  ok "server sent READY=1"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready")
  check "/ready is 200 once READY=1 was sent (got $code)" test "$code" = 200
else
  nok "server sent READY=1 within 60 s"
  sed 's/^/#   /' "$tmp/server.log" | tail -10
fi
n0=$(nmsg)
check "WATCHDOG=1 within 3 s with WATCHDOG_USEC=2 s" wait_msg '(^|\|)WATCHDOG=1' 3 "$n0"
n0=$(nmsg)
kill -HUP "$spid"
check "SIGHUP: RELOADING=1" wait_msg '(^|\|)RELOADING=1' 20 "$n0"
n1=$(grep -En '(^|\|)RELOADING=1' "$tmp/messages" | tail -1 | cut -d: -f1)
check "SIGHUP: READY=1 again after the reload" wait_msg '(^|\|)READY=1' 30 "${n1:-$n0}"
n0=$(nmsg)
kill -TERM "$spid"
check "SIGTERM: STOPPING=1" wait_msg '(^|\|)STOPPING=1' 10 "$n0"
rc=124
for _ in $(seq 100); do
  if ! kill -0 "$spid" 2>/dev/null; then wait "$spid"; rc=$?; break; fi
  sleep 0.1
done
check "SIGTERM: server exits 0 (rc $rc)" test "$rc" -eq 0
echo "# messages received: $(tr '\n' ' ' <"$tmp/messages" | sed 's/WATCHDOG=1 //g') (+ $(grep -c WATCHDOG=1 "$tmp/messages") WATCHDOG=1)"
exit $((fails > 0))
