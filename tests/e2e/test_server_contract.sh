#!/usr/bin/env bash
# electra-server end to end: the API contract (every route, status and body shape against the
# served /openapi.json), request paths, strict request fields, request ids, metrics.
# Needs build/bin/electra-server (BUILD=...) and /usr/bin/python3 with torch (test checkpoints)
# and jsonschema (Debian python3-jsonschema).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/server_contract.py
