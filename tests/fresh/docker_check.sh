#!/usr/bin/env bash
# Checks the Dockerfile without a Docker engine (`make docker-check`):
# carries out its instructions stage by stage in debootstrapped Debian 12
# roots (RUN in a chroot with the stage's ENV and WORKDIR, COPY from the
# build context filtered by .dockerignore or from an earlier stage), then
# runs the final stage as `docker run` would: its ENTRYPOINT as its USER with
# its ENV, the root read-only, a small model at the VOLUME, and checks
# /health, /ready, /score, the HEALTHCHECK command, JSON logs on stdout, that
# the runtime root has no compiler or -dev package and that SIGTERM ends the
# server with status 0.
#
#   tests/fresh/docker_check.sh [--keep] [DIR]
#     DIR     scratch folder with the cached Debian root and .debs
#             (default /var/tmp/electra-fresh; a second run reuses them)
#     --keep  leave the stage roots in DIR/docker-stage*/ for a look
# Needs root, debootstrap, /usr/bin/python3 with torch (for the test model)
# and curl on the host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=tests/fresh/lib.sh
source "$here/lib.sh"
PY=/usr/bin/python3

keep=0
FRESH_DIR=/var/tmp/electra-fresh
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1 ;;
    --skip-test) ;; # fresh_machine.sh's option; nothing to skip here
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) fresh_die "unknown option $1" ;;
    *) FRESH_DIR=$1 ;;
  esac
  shift
done
mkdir -p "$FRESH_DIR"
FRESH_DIR=$(cd "$FRESH_DIR" && pwd)
fresh_need_root
command -v curl >/dev/null || fresh_die "curl missing on the host"
t_start=$SECONDS
fails=0
passes=0
ok() { echo "ok - $*"; passes=$((passes + 1)); }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { local msg=$1; shift; if "$@"; then ok "$msg"; else nok "$msg"; fi; }
b64d() { printf '%s' "$1" | base64 -d; }
logdir=$FRESH_DIR/docker-logs
rm -rf "$logdir"
mkdir -p "$logdir"

# ---- 1. build: carry out the Dockerfile ----
declare -A stage_root=()
roots=()
root="" cwd=/ user="" envs=() healthcheck="" entrypoint="" volume="" expose=""
set_env() { # NAME VALUE: replace or add
  local i
  for i in "${!envs[@]}"; do
    if [ "${envs[$i]%%=*}" = "$1" ]; then envs[$i]="$1=$2"; return; fi
  done
  envs+=("$1=$2")
}
plan=$("$PY" "$here/dockerfile.py" plan "$repo/Dockerfile") || fresh_die "Dockerfile not understood"
nrun=0
while read -r instr a b c <&3; do
  case $instr in
    STAGE)
      [ "$c" = debian:bookworm-slim ] || fresh_die "stage $a is FROM $c; this check emulates debian:bookworm-slim only"
      root=$(fresh_new_root "docker-stage$a")
      roots+=("$root")
      stage_root[$a]=$root
      [ "$b" = - ] || stage_root[$b]=$root
      cwd=/ user="" healthcheck="" entrypoint="" volume="" expose=""
      envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root HOSTNAME=electra)
      fresh_log "stage $a${b:+ ($b)}: FROM $c -> $root"
      ;;
    RUN)
      nrun=$((nrun + 1))
      cmd=$(b64d "$a")
      log=$logdir/run$nrun.log
      t0=$SECONDS
      fresh_log "RUN ${cmd:0:100}..."
      env_args=()
      for e in "${envs[@]}"; do env_args+=(--env "$e"); done
      if fresh_in_root "$root" --cwd "$cwd" "${env_args[@]}" -- /bin/sh -c "$cmd" </dev/null >"$log" 2>&1; then
        ok "RUN #$nrun ($((SECONDS - t0)) s): ${cmd:0:70}"
      else
        nok "RUN #$nrun: ${cmd:0:70}"
        tail -25 "$log" | sed 's/^/#   /'
        fresh_die "build step failed (log: $log)"
      fi
      ;;
    WORKDIR)
      case $a in /*) cwd=$a ;; *) cwd=${cwd%/}/$a ;; esac
      mkdir -p "$root$cwd"
      ;;
    ENV) set_env "$a" "$(b64d "$b")" ;;
    COPY)
      mapfile -t args < <(b64d "$b" | "$PY" -c 'import json,sys; print("\n".join(json.load(sys.stdin)))')
      dest=${args[-1]}
      unset 'args[-1]'
      case $dest in /*) ;; *) dest=${cwd%/}/$dest ;; esac
      if [ "$a" = . ]; then
        [ "${args[*]}" = . ] || fresh_die "COPY ${args[*]}: only 'COPY . DEST' from the context is emulated"
        n=$("$PY" "$here/dockerfile.py" context "$repo" "$root$dest")
        fresh_log "COPY context -> $dest ($n files after .dockerignore)"
        for bad in .git build models; do
          check "build context leaves out $bad/" test ! -e "$root$dest/$bad"
        done
      else
        from=${stage_root[$a]:-}
        [ -n "$from" ] || fresh_die "COPY --from=$a: no such stage"
        mkdir -p "$root$dest"
        for s in "${args[@]}"; do cp -a "$from$s" "$root$dest/" || fresh_die "COPY --from=$a $s"; done
        fresh_log "COPY --from=$a ${args[*]} -> $dest"
      fi
      ;;
    USER) user=$a ;;
    EXPOSE) expose="$a $b $c" ;;
    VOLUME) volume=$a ;;
    HEALTHCHECK) healthcheck=$(b64d "$a") ;;
    ENTRYPOINT) entrypoint=$(b64d "$a") ;;
    CMD) fresh_die "CMD is not emulated by this check" ;;
  esac
done 3<<<"$plan"
final=$root
build_secs=$((SECONDS - t_start))
fresh_log "image built in $build_secs s"

# ---- 2. the image as a whole ----
check "final stage sets a non-root USER ($user)" test -n "$user" -a "${user%%:*}" != 0 -a "${user%%:*}" != root
check "EXPOSE 8080" grep -qw 8080 <<<"$expose"
check "VOLUME for models ($volume)" test -n "$volume"
check "HEALTHCHECK uses the binary, not curl" grep -q -- '"--healthcheck"' <<<"$healthcheck"
env_of() { local e; for e in "${envs[@]}"; do [ "${e%%=*}" = "$1" ] && { echo "${e#*=}"; return; }; done; }
check "ENV ELECTRA_HOST=0.0.0.0" test "$(env_of ELECTRA_HOST)" = 0.0.0.0
check "ENV ELECTRA_LOG_FORMAT=json" test "$(env_of ELECTRA_LOG_FORMAT)" = json
model_env=$(env_of ELECTRA_MODEL)
model_dir=${model_env#*=}
model_dir=${model_dir%%,*}
check "ENV ELECTRA_MODEL ($model_env) points under the VOLUME $volume" \
  test "${model_dir#"$volume"/}" != "$model_dir"
devs=$(fresh_in_root "$final" -- dpkg-query -W -f '${Package}\n' </dev/null |
  grep -E -- '-dev(:|$)|^(gcc|g\+\+|cpp)(-[0-9]+)?$|^build-essential$|^make$|^curl$' || true)
check "runtime image has no compiler, make, curl or -dev package${devs:+ (found: $(echo $devs))}" test -z "$devs"
check "runtime image has no sources (/src)" test ! -e "$final/src"
for b in electra-server electra-train; do
  bin=$(fresh_in_root "$final" -- sh -c "command -v $b" </dev/null || true)
  missing=$(fresh_in_root "$final" -- ldd "${bin:-/usr/local/bin/$b}" </dev/null 2>&1 | grep -E 'not found|not a dynamic' || true)
  check "$b on PATH ($bin) with every shared library present${missing:+: $missing}" test -n "$bin" -a -z "$missing"
done
size=$(du -sm "$final" | cut -f1)
echo "# runtime root: ${size} MB (debootstrap minbase is larger than the slim image)"

# ---- 3. docker run ----
tmp=$(mktemp -d /tmp/el-docker-check-XXXXXX)
spid="" upid=""
cleanup() {
  [ -n "$upid" ] && fresh_kill "$upid"
  rm -rf "$tmp"
  if [ "$keep" = 0 ]; then for r in "${roots[@]}"; do fresh_remove_root "$r"; done; fi
}
trap cleanup EXIT
"$PY" "$repo/tests/reference/make_checkpoint.py" --arch pretraining --out "$tmp/model" >/dev/null ||
  fresh_die "tests/reference/make_checkpoint.py --arch pretraining failed (needs python3-torch)"
mkdir -p "$final$model_dir"
cp -r "$tmp/model/." "$final$model_dir/"
chmod -R a+rX "$final$volume"
port=$(fresh_free_port)
set_env ELECTRA_PORT "$port" # docker run -e ELECTRA_PORT=... (shares the host's network here)
set_env HOME /
run_args=(--ro --user "$user")
for e in "${envs[@]}"; do run_args+=(--env "$e"); done
mapfile -t ep < <(printf '%s' "$entrypoint" | "$PY" -c 'import json,sys; v=json.load(sys.stdin); print("\n".join(v if isinstance(v,list) else ["/bin/sh","-c",v]))')
fresh_log "docker run: ${ep[*]} as $user on port $port, root read-only"
t0=$SECONDS
fresh_in_root "$final" "${run_args[@]}" -- "${ep[@]}" </dev/null >"$tmp/stdout" 2>"$tmp/stderr" &
upid=$!
code=000
for _ in $(seq 300); do
  kill -0 "$upid" 2>/dev/null || break
  code=$(curl -s -o "$tmp/health" -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
  [ "$code" = 200 ] && break
  sleep 0.2
done
check "GET /health 200 ($code) $((SECONDS - t0)) s after start" test "$code" = 200
check "/health body says ok" grep -q '"ok"' "$tmp/health"
spid=$(fresh_find_child "$upid" electra-server || true)
uid=$(awk '/^Uid:/ {print $2}' /proc/"${spid:-0}"/status 2>/dev/null || true)
check "server runs as uid ${user%%:*} (got ${uid:-?})" test "$uid" = "${user%%:*}"
code=000
for _ in $(seq 150); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready" || true)
  [ "$code" = 200 ] && break
  sleep 0.2
done
check "GET /ready 200 (got $code)" test "$code" = 200
code=$(curl -s -o "$tmp/score" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"text": "the cat sat on the mat"}' "http://127.0.0.1:$port/score" || true)
check "POST /score 200 with tokens (got $code)" grep -q '"tokens"' "$tmp/score"
mapfile -t hc < <(printf '%s' "$healthcheck" | "$PY" -c 'import json,sys; c=json.load(sys.stdin)["cmd"]; print("\n".join(c if isinstance(c,list) else ["/bin/sh","-c",c]))')
check "HEALTHCHECK (${hc[*]}) exits 0 while serving" \
  fresh_in_root "$final" "${run_args[@]}" -- "${hc[@]}" </dev/null >/dev/null 2>&1

if [ -n "$spid" ]; then kill -TERM "$spid"; fi
rc=124
for _ in $(seq 400); do
  if ! kill -0 "$upid" 2>/dev/null; then rc=0; wait "$upid" || rc=$?; break; fi
  sleep 0.1
done
check "SIGTERM (docker stop): exit status 0 (got $rc)" test "$rc" -eq 0
upid=""
set +e
fresh_in_root "$final" "${run_args[@]}" -- "${hc[@]}" </dev/null >/dev/null 2>&1
hrc=$?
set -e
check "HEALTHCHECK exits non-zero once the server is gone (got $hrc)" test "$hrc" -ne 0
# Docker keeps both streams; the issue asks for the logs on stdout.
json_lines() { # FILE -> "lines not-json"
  "$PY" -c '
import json, sys
n = bad = 0
for line in open(sys.argv[1], errors="replace"):
    if line.strip():
        n += 1
        try:
            json.loads(line)
        except ValueError:
            bad += 1
print(n, bad)' "$1"
}
read -r nout badout < <(json_lines "$tmp/stdout")
read -r nerr baderr < <(json_lines "$tmp/stderr")
check "every log line is a JSON object (stdout $badout of $nout not, stderr $baderr of $nerr not)" \
  test $((nout + nerr)) -gt 0 -a "$badout" = 0 -a "$baderr" = 0
check "logs go to stdout ($nout lines on stdout, $nerr on stderr)" test "$nout" -gt 0
if [ "$fails" -gt 0 ]; then
  echo "# server stdout:"; tail -5 "$tmp/stdout" | sed 's/^/#   /'
  echo "# server stderr:"; tail -10 "$tmp/stderr" | sed 's/^/#   /'
fi

total=$((SECONDS - t_start))
echo "# image build ${build_secs} s, whole check ${total} s"
echo "docker-check: $passes passed, $fails failed"
exit $((fails > 0))
