#!/usr/bin/env bash
# Data-parallel training across hosts: two "hosts" are network namespaces on
# this machine (h1 10.77.0.1, h2 10.77.0.2, each with its own hostname,
# joined by veth pairs to a bridge in a third namespace where mpirun runs).
# mpirun starts an orted on each through a launch agent that enters the
# host's namespace with a clean environment, as ssh would, and the ranks talk
# over TCP only (btl self,tcp: no shared memory; btl/oob on 10.77.0.0/24).
#  - equivalence: 8 steps of `pretrain` on 2 hosts end within TOL of one
#    process, as tests/e2e/test_train_mpi.sh checks for 2 ranks on one
#    machine, and bit for bit like those 2 ranks through shared memory (the
#    sum of two ranks is one float addition, the same in either order); the
#    gradients crossed the link, once each way per step (h2's eth0 counts);
#  - the gradient sum over the link, printed beside the model of
#    docs/TRAINING.md ("What to expect"): the trainer's closing line (time in
#    MPI_Allreduce, MB per step) and bench_allreduce alone, over the bare veth
#    and with both hosts' eth0 shaped to 1 Gb/s (tc tbf); shaped, a TCP
#    stream and the sum cannot beat the block's transfer at that rate, which
#    fails if the data took another way;
#  - a lost rank: rank 1 killed with SIGKILL inside h2 mid-run ends the job on
#    both hosts (no hang), and --resume on the two hosts ends bit-identical to
#    an uninterrupted 2-host run; resumed on h1 alone (the host does not come
#    back) it computes the same steps, within TOL;
#  - a lost host: every process of h2 killed (a crash): the job ends, nothing
#    is left running on h1 (a partition is not bounded: see below).
# Skips (with the reason) when not root, without ip/unshare/mpirun, without
# an MPI build, or where network namespaces, veth pairs or bridges cannot be
# created. The namespaces (and the veths in them) are removed on any exit.
# ~80 s on 2 shared cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
. tests/tap.sh
. tests/e2e/train_lib.sh
TOL=1e-4
NET=10.77.0
P=elh$$ # namespace prefix: $P-head, $P-h1, $P-h2

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }
if "$BIN" --version | grep -q "data-parallel: not built"; then
  skip "electra-train built without MPI (make MPI=1 with libopenmpi-dev)"; exit 0
fi
command -v mpirun >/dev/null || { skip "mpirun not found (Debian openmpi-bin)"; exit 0; }
command -v ip >/dev/null || { skip "no ip command (Debian iproute2)"; exit 0; }
command -v unshare >/dev/null || { skip "no unshare (Debian util-linux)"; exit 0; }
[ "$(id -u)" -eq 0 ] || { skip "network namespaces need root (uid $(id -u))"; exit 0; }
"$PY" -c 'import numpy' 2>/dev/null || { skip "no numpy at $PY"; exit 0; }

T=$(mktemp -d /tmp/el_train_mpi_hosts.XXXXXX)
NSS=()
cleanup() {
  kill -9 $(jobs -p) 2>/dev/null
  local ns
  for ns in "${NSS[@]}"; do # what still runs in a host, then the host and its veths
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the hosts: a bridge in $P-head, a veth from it to eth0 of each host ----
netns_add() { ip netns add "$1" 2>"$T/ip.err" && NSS+=("$1"); }
build_hosts() {
  netns_add $P-head || return 1
  ip -n $P-head link add br0 type bridge &&
    ip -n $P-head addr add $NET.254/24 dev br0 &&
    ip -n $P-head link set br0 up && ip -n $P-head link set lo up || return 1
  local i
  for i in 1 2; do
    netns_add $P-h$i &&
      ip -n $P-head link add p$i type veth peer name eth0 netns $P-h$i &&
      ip -n $P-head link set p$i master br0 up &&
      ip -n $P-h$i addr add $NET.$i/24 dev eth0 &&
      ip -n $P-h$i link set eth0 up && ip -n $P-h$i link set lo up || return 1
  done
  ip netns exec $P-h1 unshare --uts true || return 1
} 2>>"$T/ip.err"
# the hosts of an earlier run of this test that was killed before its trap ran
for ns in $(ip netns list 2>/dev/null | grep -o '^elh[0-9]*-[a-z0-9]*'); do
  pid=${ns#elh}; pid=${pid%%-*}
  kill -0 "$pid" 2>/dev/null || ip netns del "$ns" 2>/dev/null
done
if ! build_hosts; then
  skip "cannot build network namespaces here: $(tr '\n' ' ' <"$T/ip.err")"; exit 0
fi
ok "2 hosts as network namespaces ($NET.1, $NET.2) on a bridge"

# mpirun's launch agent, called as "agent [options] HOST COMMAND...": COMMAND
# in HOST's namespace with its own hostname and, as over ssh, none of mpirun's
# environment (what the ranks need must come through mpirun).
cat >"$T/agent" <<EOF
#!/bin/sh
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
echo "\$host" >>"$T/agent.log"
exec ip netns exec "$P-h\${host##*.}" unshare --uts sh -c \\
  'hostname "\$0" && exec env -i PATH="\$PATH" HOME=/ sh -c "\$1"' "host\${host##*.}" "\$*"
EOF
chmod +x "$T/agent"
printf '%s slots=1\n' $NET.1 $NET.2 >"$T/hosts"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under SANITIZE=address the ranks run without LeakSanitizer (Open MPI's own
# allocations at MPI_Finalize; see test_train_mpi.sh).
HOSTS=(ip netns exec $P-head mpirun --hostfile "$T/hosts" -np 2 --bind-to none
       --mca plm_rsh_agent "$T/agent" --mca btl self,tcp
       --mca btl_tcp_if_include $NET.0/24 --mca oob_tcp_if_include $NET.0/24
       -x "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")
# OpenBLAS picks its kernels by CPU unless OPENBLAS_CORETYPE says; other
# kernels round otherwise, so every rank gets this shell's choice (-x), as
# the ranks started here inherit it
for v in $(compgen -e | grep '^OPENBLAS_'); do HOSTS+=(-x "$v"); done
# the same two ranks on this machine through shared memory
LOCAL=(env OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo
       "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
       mpirun --oversubscribe --bind-to none -np 2)

tiny_corpus || { bad "corpus or vocab failed"; exit 1; }

# eth0 bytes (received + sent) of a host
link_bytes() {
  ip netns exec "$1" cat /sys/class/net/eth0/statistics/{rx,tx}_bytes | awk '{s += $1} END {print s}'
}
# shape on|off: both hosts send at most 1 Gb/s (a token bucket queueing up to
# 16 MB, like a NIC's queue: no drops), or at veth speed
shape() {
  local i
  for i in 1 2; do
    if [ "$1" = on ]; then
      ip netns exec $P-h$i tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb limit 16mb || return 1
    else
      ip netns exec $P-h$i tc qdisc del dev eth0 root 2>/dev/null
    fi
  done
} 2>>"$T/tc.err"
SHAPED=0
shape on && SHAPED=1
shape off
# trainers NS: pids of electra-train running in namespace NS
trainers() {
  local p
  for p in $(ip netns pids "$1"); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = electra-train ] && echo "$p"
  done
}

# ---- equivalence: 1 process, 2 ranks through shared memory, 2 hosts over TCP ----
PT=(pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --preset tiny --max-steps 8
    --batch-size 8 --seq-len 40 --save-every 0 --val-every 0 --log-every 4 --threads 1)
"$BIN" "${PT[@]}" --seed 5 --out "$T/p1" 2>"$T/p1.log" || { bad "pretrain, 1 process"; tail -3 "$T/p1.log"; }
"$BIN" "${PT[@]}" --seed 6 --out "$T/p1s" 2>/dev/null || bad "pretrain, 1 process, seed 6"
"${LOCAL[@]}" "$BIN" "${PT[@]}" --seed 5 --out "$T/pl" 2>"$T/pl.log" ||
  { bad "pretrain, 2 ranks through shared memory"; sed 's/^/#   /' "$T/pl.log" | tail -5; }
b0=$(link_bytes $P-h2)
"${HOSTS[@]}" "$BIN" "${PT[@]}" --seed 5 --out "$T/ph" 2>"$T/ph.log" ||
  { bad "pretrain on 2 hosts"; sed 's/^/#   /' "$T/ph.log" | tail -8; }
moved=$(( $(link_bytes $P-h2) - b0 ))
check "mpirun started an orted on each host through the agent" \
  [ "$(sort -u "$T/agent.log" | tr '\n' ' ')" = "$NET.1 $NET.2 " ]
check "the run says it is data parallel over 2 ranks" grep -q "data parallel: 2 rank(s) x 1" "$T/ph.log"
for m in discriminator generator; do
  check "2 hosts over TCP = 1 process ($m, max |diff| < $TOL)" within "$T/p1/$m" "$T/ph/$m"
  check "2 hosts over TCP = 2 ranks through shared memory ($m, cmp)" \
    cmp "$T/pl/$m/model.safetensors" "$T/ph/$m/model.safetensors"
done
check "another seed is far apart (the check can fail)" beyond "$T/p1/discriminator" "$T/p1s/discriminator"
mb=$(grep -o "[0-9.]* MB per step per rank" "$T/ph.log" | tail -1 | awk '{print $1}')
# two ranks' sum sends and receives the block once each (2 (N - 1) / N);
# 2 % off for the rounding of the MB
need=$("$PY" -c "print(int(0.98 * 2 * 8 * ${mb:-0} * 1e6))")
echo "# h2's eth0 received + sent $moved bytes in 8 steps of a ${mb:-?} MB gradient block"
check "the gradients crossed the link, once each way per step ($moved >= $need bytes)" \
  [ "$moved" -ge "$need" ]
grep "gradient sums" "$T/ph.log" | sed 's/^/# 2 hosts, bare veth: /'

# ---- the gradient sum over the link, beside the model ----
echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
# stream MB: one TCP stream of MB megabytes from h1 to h2; prints the seconds
cat >"$T/stream.py" <<'EOF'
import socket, sys, time
if sys.argv[1] == "serve":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((sys.argv[2], 5001))
    s.listen(1)
    s.settimeout(30)
    c, _ = s.accept()
    while c.recv(1 << 20):
        pass
    c.sendall(b"k")
    sys.exit(0)
data = b"x" * int(float(sys.argv[3]) * 1e6)
for _ in range(100):  # until the server listens
    try:
        c = socket.create_connection((sys.argv[2], 5001))
        break
    except OSError:
        time.sleep(0.05)
t = time.monotonic()
c.sendall(data)
c.shutdown(socket.SHUT_WR)
c.recv(1)
print("%.4f" % (time.monotonic() - t))
EOF
stream() {
  ip netns exec $P-h2 "$PY" "$T/stream.py" serve $NET.2 &
  local sp=$!
  ip netns exec $P-h1 "$PY" "$T/stream.py" send $NET.2 "$1"
  wait $sp
}
# sum WHAT MPIRUN...: bench_allreduce of the block (20 calls after a barrier
# each) under MPIRUN; prints the time per call, leaves the seconds in $secs
sum() {
  local what=$1 r
  shift
  r=$("$@" "$ABENCH" "$mb" 20 2>/dev/null | grep '^{')
  secs=$("$PY" -c 'import json, sys; print(json.loads(sys.argv[1])["seconds_per_call"])' "$r" 2>/dev/null)
  echo "# the sum alone (bench_allreduce), $what: $("$PY" -c "print('%.1f ms' % (1e3 * ${secs:-0}))")"
}
ABENCH=$BUILD/bench/bench_allreduce
if [ -x "$ABENCH" ] && [ -n "$mb" ]; then
  echo "# the model (docs/TRAINING.md): a step adds ~2 x $mb MB / bandwidth, at 1 Gb/s (0.11 GB/s)" \
    "$("$PY" -c "print('%.1f' % (2 * $mb / 0.11))") ms"
  echo "# one TCP stream of $mb MB, h1 to h2, bare veth: $(stream "$mb") s"
  sum "2 ranks through shared memory on one host" "${LOCAL[@]}"
  sum "2 hosts, bare veth" "${HOSTS[@]}"
  if [ $SHAPED = 1 ] && shape on; then
    one=$(stream "$mb")
    echo "# one TCP stream of $mb MB, h1 to h2, eth0 shaped to 1 Gb/s: $one s"
    # floors below: 1 Gb/s, less the bucket's 256 KB burst and some slack
    check "the shaped link holds a TCP stream to 1 Gb/s ($one s >= $mb MB / 140 MB/s)" \
      "$PY" -c "import sys; sys.exit(${one:-0} < $mb / 140)"
    sum "2 hosts, eth0 shaped to 1 Gb/s" "${HOSTS[@]}"
    check "shaped to 1 Gb/s, the sum takes at least the block's transfer ($secs s >= $mb MB / 140 MB/s)" \
      "$PY" -c "import sys; sys.exit(${secs:-0} < $mb / 140)"
    "${HOSTS[@]}" "$BIN" "${PT[@]}" --seed 5 --out "$T/pt" 2>"$T/pt.log" || bad "pretrain on 2 hosts at 1 Gb/s"
    grep "gradient sums" "$T/pt.log" | sed 's/^/# 2 hosts, eth0 shaped to 1 Gb\/s: /'
    shape off
  else
    skip "no tc tbf here, the link is not shaped: $(tr '\n' ' ' <"$T/tc.err")"
  fi
else
  skip "$ABENCH not built: no timing of the sum alone"
fi

# ---- a rank lost mid-run; --resume ----
# The runs that are cut short go over a 1 Gb/s link where tc can shape it:
# each step then takes at least the block's transfer (~30 ms), and the 30
# steps after the first checkpoint outlast the loss on any machine; else 150
# steps.
LONG=(pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --preset tiny
      --max-steps $([ $SHAPED = 1 ] && echo 40 || echo 150) --batch-size 8 --seq-len 40
      --save-every 10 --val-every 0 --log-every 10 --seed 5 --threads 1)
# start_long NAME: a LONG run on the 2 hosts in the background (pid in
# $mpid), returned once it has saved step 10
start_long() {
  "${HOSTS[@]}" "$BIN" "${LONG[@]}" --out "$T/$1" >/dev/null 2>"$T/$1.log" &
  mpid=$!
  until_saved "$T/$1.log" $mpid
}
# ends_within S WHAT: mpirun ($mpid) gone within S seconds, non-zero, and no
# trainer left on h1
ends_within() {
  local t0=$SECONDS alive=0 rc
  for _ in $(seq 1 $(($1 * 10))); do kill -0 $mpid 2>/dev/null || break; sleep 0.1; done
  kill -0 $mpid 2>/dev/null && alive=1
  [ $alive -eq 1 ] && kill -9 $mpid
  wait $mpid 2>/dev/null
  rc=$?
  check "$2: the job ends (in $((SECONDS - t0)) s of at most $1, rc $rc)" [ $alive -eq 0 ] && [ $rc -ne 0 ]
  check "$2: no trainer left on h1" [ -z "$(trainers $P-h1)" ]
}
# logged WHAT LOG REGEX: LOG says REGEX (else its tail is shown)
logged() {
  if grep -qE "$3" "$2"; then ok "$1"; else bad "$1"; sed 's/^/#   /' "$2" | tail -12; fi
}

"${HOSTS[@]}" "$BIN" "${LONG[@]}" --out "$T/ka" >/dev/null 2>"$T/ka.log" ||
  { bad "uninterrupted run on 2 hosts"; sed 's/^/#   /' "$T/ka.log" | tail -5; }
[ $SHAPED = 1 ] && shape on
start_long kb
victim=""
for p in $(trainers $P-h2); do
  tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && victim=$p
done
check "rank 1 runs in h2, rank 0 in h1" [ -n "$victim" ] && [ -n "$(trainers $P-h1)" ]
[ -n "$victim" ] && ip netns exec $P-h2 kill -9 "$victim"
ends_within 60 "rank 1 killed inside h2"
shape off
# Open MPI reports whichever death it notices first: rank 1's SIGKILL, or rank 0's SIGPIPE
# writing to the dead peer ("rank 0 ... exited on signal 13 (Broken pipe)", seen once)
logged "the job reports a rank's death" "$T/kb.log" "exited on signal|[Kk]illed|non-zero exit code"
# the host does not come back: the other split is h1 alone
H1=(ip netns exec $P-h1)
check_resume ka kb "on the 2 hosts" HOSTS H1 "on h1 alone"

# ---- a host lost: crashed (every process of h2 gone) ----
[ $SHAPED = 1 ] && shape on
start_long kx
ip netns exec $P-h2 kill -9 $(ip netns pids $P-h2)
ends_within 30 "h2 crashed (its orted and rank killed)"
# What Open MPI says varies with who notices first (rank 0's connection to
# its peer, mpirun's to the host's daemon, the collective rank 0 was in) and
# is sometimes nothing: shown, not asserted.
echo "# h2 crashed, Open MPI said: $(grep -m1 -E 'Peer host|lost communication|reset by peer|MPI_ERR_' "$T/kx.log" || echo '(nothing matched)')"
# A partition (h2's link down) is not asserted: a rank that only waits to
# receive has nothing to retransmit, so whether TCP notices within any bound
# depends on where the step was (10 s in one run with tcp_retries2=3, over 60 s
# in another); docs/TRAINING.md says so and points at the scheduler's limit.
shape off
[ $fails -eq 0 ]
