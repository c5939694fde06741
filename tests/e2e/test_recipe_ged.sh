#!/usr/bin/env bash
# electra-train recipe ged end to end: a tiny GED model from Debian's WordNet text in ~40 s,
# served with its calibrated threshold (tests/e2e/recipe_ged.py).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
for b in electra-server electra-train; do
  [ -x "$BUILD/bin/$b" ] || { echo "not ok - $BUILD/bin/$b is missing (run make)"; exit 1; }
done
exec /usr/bin/python3 tests/e2e/recipe_ged.py
