#!/usr/bin/env bash
# GET / in headless Chromium: type a sentence with errors, Check, click an underline and its
# suggestion, see the text corrected; with the checker's double, then with the real checker
# when a trained model is present (ELECTRA_CHECK_MODEL). SKIPs without chromium.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
make -s "$BUILD/tests/electra-server-checkdouble" >/dev/null 2>&1 || true
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/server_browser.py
