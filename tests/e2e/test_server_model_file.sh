#!/usr/bin/env bash
# electra-server while its model file is truncated, replaced by cp, overwritten or zeroed:
# answers change only through a successful SIGHUP reload; /info shows the last reload;
# a SIGHUP during a reload is queued; RSS within the model file + 32 MB.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/server_model_file.py
