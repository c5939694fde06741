#!/usr/bin/env bash
# /v2/check against /score on one 200-word paragraph (issue 38's target:
# at most 2x), same server, same model, requests alternating; see
# tests/bench/bench_check.py.
#   BENCH_CHECK_MODEL=DIR BENCH_ROUNDS=20 tests/bench/bench_check.sh
# The model is a GED model directory (with generator/ for the generator's
# candidates): BENCH_CHECK_MODEL, else models/default (make run's).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
[ -x "$BUILD/bin/electra-server" ] || { echo "bench_check: $BUILD/bin/electra-server missing (run make)"; exit 1; }
MODEL=${BENCH_CHECK_MODEL:-models/default}
if [ ! -f "$MODEL/config.json" ]; then
  echo "bench_check: SKIP (no GED model at $MODEL: run make run once, or set BENCH_CHECK_MODEL)"; exit 0
fi
exec /usr/bin/python3 tests/bench/bench_check.py "$MODEL"
