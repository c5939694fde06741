#!/usr/bin/env bash
# `make bench`: runs every tests/bench/bench_*.sh in turn. Benchmarks print
# their own tables (this engine and PyTorch side by side, with ratios); they
# are measurements, not pass/fail tests.
#   tests/bench/run.sh [FILTER]
set -u
cd "$(dirname "$0")/../.."
export BUILD=${BUILD:-build} PYTHON=${PYTHON:-/usr/bin/python3}
filter=${1:-}
status=0
for b in tests/bench/bench_*.sh; do
  [ -f "$b" ] || continue
  [ -n "$filter" ] && [[ "$b" != *"$filter"* ]] && continue
  echo "=== $b"
  bash "$b" || { echo "!!! $b exited with $?"; status=1; }
  echo
done
exit $status
