#!/usr/bin/env bash
# Runs every test of the project and ends with "N passed, N failed, N skipped".
# Test programs print TAP-style lines: "ok - name", "not ok - name",
# "ok - # SKIP reason". A program that exits non-zero without printing a
# "not ok" line counts as one failure; one that times out too.
#   tests/run.sh [FILTER]   only tests whose name or kind/name contains FILTER:
#                           a name (test_layers), or a kind: unit/ (the C
#                           programs), reference/ (PyTorch checks), e2e/
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
export BUILD PYTHON
filter=${1:-}
pass=0; fail=0; skip=0; failed_names=()
logdir=$BUILD/test-logs; mkdir -p "$logdir"

run_one() { # name, timeout, command...
  local name=$1 to=$2; shift 2
  local log=$logdir/$name.log
  local t0=$(date +%s)
  timeout --kill-after=10 "$to" "$@" >"$log" 2>&1
  local rc=$?
  local p f s
  p=$(grep -c '^ok - ' "$log" | tr -d ' ')
  s=$(grep -c '^ok - # SKIP' "$log" | tr -d ' ')
  f=$(grep -c '^not ok - ' "$log" | tr -d ' ')
  p=$((p - s))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
    [ "$rc" -eq 124 ] && echo "not ok - $name: timed out after ${to}s" >>"$log" \
                      || echo "not ok - $name: exited with status $rc" >>"$log"
  fi
  pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
  local dt=$(( $(date +%s) - t0 ))
  if [ "$f" -gt 0 ]; then
    failed_names+=("$name")
    printf 'FAIL %-32s %4d passed %3d failed %3d skipped  %4ds\n' "$name" "$p" "$f" "$s" "$dt"
    grep -E '^(not ok|#   )' "$log" | head -20 | sed 's/^/     /'
  else
    printf 'ok   %-32s %4d passed %3d failed %3d skipped  %4ds\n' "$name" "$p" "$f" "$s" "$dt"
  fi
  grep '^ok - # SKIP' "$log" | head -5 | sed 's/^ok - # /     /'
}

# 1. C unit tests (built by make into $BUILD/tests/).
for bin in "$BUILD"/tests/test_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  [ -n "$filter" ] && [[ "unit/$name" != *"$filter"* ]] && continue
  run_one "$name" 600 "$bin"
done
# 2. Script tests: PyTorch reference checks, trainer and server end to end.
for t in tests/reference/test_*.sh tests/e2e/test_*.sh; do
  [ -f "$t" ] || continue
  name=$(basename "$t" .sh)
  [ -n "$filter" ] && [[ "${t#tests/}" != *"$filter"* ]] && continue
  run_one "$name" 900 bash "$t"
done

echo
[ ${#failed_names[@]} -gt 0 ] && echo "failed: ${failed_names[*]} (logs in $logdir/)"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
