#!/usr/bin/env bash
# The README's "Training your own model" commands and its curl examples, read
# from README.md and run as written (small data and step counts substituted
# as tests/e2e/readme_commands.py documents) in a fresh temporary directory.
# Runtime: ~1-2 minutes on 2 cores.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
for b in electra-train electra-server; do
  [ -x "$BUILD/bin/$b" ] || { echo "not ok - $BUILD/bin/$b not built"; exit 1; }
done
command -v curl >/dev/null || { echo "ok - # SKIP curl not installed"; exit 0; }
exec "$PY" tests/e2e/readme_commands.py
