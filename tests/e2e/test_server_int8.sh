#!/usr/bin/env bash
# electra-server --dtype int8 end to end (tests/e2e/server_int8.py). Needs
# build/bin/electra-server (BUILD=...) and /usr/bin/python3 with torch (checkpoints).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/server_int8.py
