#!/usr/bin/env bash
# Proves the README's two commands on a fresh Debian 12 (`make fresh-test`):
# debootstraps a minimal bookworm root into a scratch folder, puts a clean
# clone of this repository in it, and inside it (chroot, own mount and PID
# namespaces) runs
#   1. the main job: deploy/install-deps.sh && make run   (with
#      ELECTRA_DEFAULT_MODEL_TIME short), until the server answers /health
#      and a POST /score works; then stops it with SIGTERM (exit 0 expected);
#      then `make run` once more, which must reuse the model and start at once;
#   2. the tests: make test, with no network at all (own network namespace).
#
#   tests/fresh/fresh_machine.sh [--skip-test] [--worktree] [--keep] [DIR]
#     DIR          scratch folder (default /var/tmp/electra-fresh); the Debian
#                  root and every .deb are cached there, so a second run
#                  downloads little
#     --skip-test  stop after the main job (make test takes a while)
#     --worktree   copy the working tree as it is (tracked and untracked files,
#                  .gitignore respected) instead of cloning the last commit
#     --keep       leave the root in DIR/fresh-machine/ for a look
#   ELECTRA_DEFAULT_MODEL_TIME  pretraining time of the default model (60s here)
#   FRESH_RUN_TIMEOUT           seconds for deps + build + model + server (2400)
#   FRESH_TEST_TIMEOUT          seconds for make test (3600)
# Needs root, debootstrap, git and curl on the host.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=tests/fresh/lib.sh
source "$here/lib.sh"

# The README's two commands, run in the clone's top folder as root.
README_RUN='deploy/install-deps.sh && make run'
README_TEST='make test'

skip_test=0 worktree=0 keep=0
FRESH_DIR=/var/tmp/electra-fresh
while [ $# -gt 0 ]; do
  case $1 in
    --skip-test) skip_test=1 ;;
    --worktree) worktree=1 ;;
    --keep) keep=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) fresh_die "unknown option $1" ;;
    *) FRESH_DIR=$1 ;;
  esac
  shift
done
mkdir -p "$FRESH_DIR"
FRESH_DIR=$(cd "$FRESH_DIR" && pwd)
export FRESH_DIR
fresh_need_root
for t in git curl; do command -v $t >/dev/null || fresh_die "$t missing on the host"; done
MODEL_TIME=${ELECTRA_DEFAULT_MODEL_TIME:-60s}
RUN_TIMEOUT=${FRESH_RUN_TIMEOUT:-2400}
TEST_TIMEOUT=${FRESH_TEST_TIMEOUT:-3600}

t_start=$SECONDS
passes=0 fails=0
ok() { echo "ok - $*"; passes=$((passes + 1)); }
nok() { echo "not ok - $*"; fails=$((fails + 1)); }
check() { local msg=$1; shift; if "$@"; then ok "$msg"; else nok "$msg"; fi; }
timings=()

# ---- the machine ----
t0=$SECONDS
root=$(fresh_new_root fresh-machine)
timings+=("debian root ready: $((SECONDS - t0)) s")
upid=""
cleanup() {
  [ -n "$upid" ] && fresh_kill "$upid"
  [ "$keep" = 1 ] || fresh_remove_root "$root"
}
trap cleanup EXIT
src=/root/electra.c
if [ "$worktree" = 1 ]; then
  fresh_log "copying the working tree of $repo to $src"
  mkdir -p "$root$src"
  (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do
      case $f in build*/*) continue ;; esac # build output of any BUILD= dir
      [ -e "$f" ] && printf '%s\0' "$f"
    done |
    tar --null -T - -cf -) | tar -xf - -C "$root$src"
else
  fresh_log "git clone $repo (commit $(git -C "$repo" rev-parse --short HEAD)) to $src"
  git clone -q "$repo" "$root$src"
  rm -rf "$root$src/.git" # a user's copy may come from a tarball; nothing may need .git
fi
logdir=$FRESH_DIR/fresh-logs
rm -rf "$logdir" # an earlier run's answers must not pass for this one's
mkdir -p "$logdir"

# ---- 1. the main job ----
port=$(fresh_free_port)
runenv=(--env HOME=/root --env LANG=C.UTF-8 --env TERM=dumb
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  --env ELECTRA_DEFAULT_MODEL_TIME="$MODEL_TIME" --env ELECTRA_PORT="$port")
fresh_log "1. $README_RUN   (ELECTRA_DEFAULT_MODEL_TIME=$MODEL_TIME ELECTRA_PORT=$port; log $logdir/run.log)"
t0=$SECONDS
fresh_in_root "$root" --cwd "$src" "${runenv[@]}" -- /bin/bash -c "$README_RUN" </dev/null >"$logdir/run.log" 2>&1 &
upid=$!
code=000
while [ $((SECONDS - t0)) -lt "$RUN_TIMEOUT" ]; do
  kill -0 "$upid" 2>/dev/null || break
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health" || true)
  [ "$code" = 200 ] && break
  sleep 2
done
run_secs=$((SECONDS - t0))
timings+=("$README_RUN -> /health 200: $run_secs s")
if ! check "main job: server answers /health ($code) after $run_secs s" test "$code" = 200; then
  tail -30 "$logdir/run.log" | sed 's/^/#   /'
  fresh_die "the main job did not bring the server up"
fi
for _ in $(seq 100); do grep -q 'Ready. Try' "$logdir/run.log" && break; sleep 0.2; done
code=$(curl -s -o "$logdir/score.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"text": "The chef cooked the meal and then he eat it."}' "http://127.0.0.1:$port/score" || true)
check "POST /score answers 200 with words (got $code)" \
  sh -c "[ '$code' = 200 ] && grep -q '\"words\"' '$logdir/score.json'"
echo "# /score: $(head -c 300 "$logdir/score.json")"
code=$(curl -s -o "$logdir/tokenize.json" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"text": "Hello world"}' "http://127.0.0.1:$port/tokenize" || true)
check "POST /tokenize answers 200 (got $code)" test "$code" = 200
check "training progress shown (step N/M lines; N/~M with a time plan)" grep -qE '(^|[[:space:]])step [0-9]+/~?[0-9]+' "$logdir/run.log"
check "curl examples printed for /score and /tokenize" \
  sh -c "grep -q 'curl -s http://127.0.0.1:$port/score' '$logdir/run.log' && grep -q '/tokenize' '$logdir/run.log'"
check "default model written (models/default/config.json)" test -f "$root$src/models/default/config.json"

stop_run() { # SIGTERM to the server, as Ctrl-C would; sets rc (make run must exit 0)
  local spid
  rc=124
  spid=$(fresh_find_child "$upid" electra-server || true)
  [ -n "$spid" ] && kill -TERM "$spid"
  for _ in $(seq 600); do
    if ! kill -0 "$upid" 2>/dev/null; then rc=0; wait "$upid" || rc=$?; break; fi
    sleep 0.1
  done
  upid=""
}
stop_run
check "SIGTERM: make run exits 0 after the drain (got $rc)" test "$rc" -eq 0

# Second start: the model exists, nothing is trained again.
fresh_log "1b. make run again (model exists)"
t0=$SECONDS
fresh_in_root "$root" --cwd "$src" "${runenv[@]}" -- /bin/bash -c "make run" </dev/null >"$logdir/run2.log" 2>&1 &
upid=$!
code=000
while [ $((SECONDS - t0)) -lt 300 ]; do
  kill -0 "$upid" 2>/dev/null || break
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/ready" || true)
  [ "$code" = 200 ] && break
  sleep 0.5
done
timings+=("second make run -> /ready 200: $((SECONDS - t0)) s")
check "second make run: ready in $((SECONDS - t0)) s without training" \
  sh -c "[ '$code' = 200 ] && ! grep -q 'pretraining' '$logdir/run2.log'"
stop_run
check "second make run exits 0 (got $rc)" test "$rc" -eq 0

# ---- 2. the tests ----
if [ "$skip_test" = 1 ]; then
  echo "ok - # SKIP $README_TEST (--skip-test)"
else
  fresh_log "2. $README_TEST   (no network; log $logdir/test.log)"
  t0=$SECONDS
  set +e
  timeout --kill-after=30 "$TEST_TIMEOUT" \
    bash -c 'source "$1"; shift; fresh_in_root "$@"' _ "$here/lib.sh" "$root" --isolated-net --cwd "$src" \
    --env HOME=/root --env LANG=C.UTF-8 --env TERM=dumb \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    -- /bin/bash -c "$README_TEST" </dev/null >"$logdir/test.log" 2>&1
  rc=$?
  set -e
  timings+=("$README_TEST: $((SECONDS - t0)) s")
  rm -rf "$logdir/test-logs"
  cp -r "$root$src/build/test-logs" "$logdir/test-logs" 2>/dev/null || true
  summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logdir/test.log" | tail -1)
  echo "# make test: ${summary:-no summary line}"
  # no FAIL line is the good case: grep's status 1 must not end the script (set -e, pipefail)
  { grep -E '^(FAIL|failed:)' "$logdir/test.log" || true; } | head -20 | sed 's/^/#   /'
  for f in $(sed -n 's/^failed: \(.*\) (logs in.*/\1/p' "$logdir/test.log"); do
    echo "# $f (full log: $logdir/test-logs/$f.log):"
    grep -vE '^ok - ' "$logdir/test-logs/$f.log" 2>/dev/null | tail -8 | sed 's/^/#     /'
  done
  check "$README_TEST exits 0 with no network (rc $rc; $summary)" test "$rc" -eq 0
fi

for t in "${timings[@]}"; do echo "# time: $t"; done
echo "# whole check: $((SECONDS - t_start)) s"
echo "fresh-test: $passes passed, $fails failed"
exit $((fails > 0))
