#!/usr/bin/env bash
# electra-server under floods: memory of request bodies and answers bounded by
# --max-bytes-in-flight (resident memory measured from /proc), the per-client
# default, probes answered on --health-port while the API port is full.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
ulimit -n 8192 2>/dev/null || true
exec /usr/bin/python3 tests/e2e/server_memory.py
