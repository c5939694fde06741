#!/usr/bin/env bash
# electra-server end to end: what --model takes (DIR, NAME=DIR, a pretraining run, PyTorch
# weights after scripts/convert_pytorch_bin.py, checked on a round trip) and the start-up
# order (every model checked before "listening", bad directories refused with the reason,
# the model list in the log).
# Needs build/bin/electra-server (BUILD=...) and /usr/bin/python3 with torch.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
if [ ! -x "$BUILD/bin/electra-server" ]; then
  echo "not ok - $BUILD/bin/electra-server is missing (run make)"; exit 1
fi
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP python3-torch missing: cannot make test checkpoints"; exit 0
fi
exec /usr/bin/python3 tests/e2e/server_startup.py
