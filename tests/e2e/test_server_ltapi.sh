#!/usr/bin/env bash
# LanguageTool's API on electra-server (/v2/check, /v2/languages): the contract
# (every answer validated against /openapi.json), UTF-16 offsets, annotated
# data, errors, filters, and npm's languagetool-api as an independent client.
# Runs the server linked with the checker's test double
# (build/tests/electra-server-checkdouble, tests/double/), so the matches are
# known and the protocol is tested apart from a model's quality. Needs python3
# with torch (test models).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
BIN="$BUILD/tests/electra-server-checkdouble"
make -s "$BIN" >/dev/null 2>&1 || true
if [ ! -x "$BIN" ]; then
  echo "not ok - $BIN is missing (make $BIN)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
# the npm client, once per build directory (skipped, with a reason, without node/npm)
NPM_DIR="$BUILD/npm-lt"
if command -v node >/dev/null && command -v npm >/dev/null; then
  if [ ! -d "$NPM_DIR/node_modules/languagetool-api" ]; then
    mkdir -p "$NPM_DIR"
    npm install --prefix "$NPM_DIR" --no-audit --no-fund languagetool-api >"$NPM_DIR/install.log" 2>&1 ||
      echo "# npm install languagetool-api failed (see $NPM_DIR/install.log)"
  fi
  [ -d "$NPM_DIR/node_modules/languagetool-api" ] && export EL_LT_NODE_PATH="$PWD/$NPM_DIR/node_modules"
fi
EL_SERVER_BIN="$PWD/$BIN" EL_CHECK_DOUBLE=1 exec /usr/bin/python3 tests/e2e/server_ltapi.py
