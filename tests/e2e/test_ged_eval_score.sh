#!/usr/bin/env bash
# GED: precision/recall/F0.5 computed from the running server's /score answers equal
# what `electra-train eval` reports for the same model, file and threshold (issue 20);
# see tests/e2e/ged_eval_score.py. Needs /usr/bin/python3 with torch (test checkpoints).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
for b in electra-server electra-train; do
  [ -x "$BUILD/bin/$b" ] || { echo "not ok - $BUILD/bin/$b is missing (run make)"; exit 1; }
done
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/ged_eval_score.py
