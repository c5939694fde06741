#!/usr/bin/env bash
# The C engine against plain PyTorch (tests/reference/electra_ref.py): writes random
# checkpoints of all five architectures (E == H and E != H, f16 and bf16 storage, a
# tied MLM head, position_embedding_type relative_key) with make_checkpoint.py, inputs and PyTorch outputs with
# ref_fixtures.py, then runs the C comparison (tests/unit/test_engine_forward_ref.c):
# every output within 1e-4 absolute, batch == single input; then the int8 engine
# (tests/unit/test_engine_int8_ref.c) on the same fixtures. Fixtures live in a
# temporary directory and are never committed.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
bin=$BUILD/tests/test_engine_forward_ref
bin8=$BUILD/tests/test_engine_int8_ref
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP PyTorch not importable by $PYTHON (Debian python3-torch)"
  exit 0
fi
if [ ! -x "$bin" ] || [ ! -x "$bin8" ]; then
  echo "not ok - $bin or $bin8 is not built (run make)"
  exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/electra-ref.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if ! "$PYTHON" tests/reference/ref_fixtures.py "$dir"; then
  echo "not ok - tests/reference/ref_fixtures.py failed"
  exit 1
fi
echo "ok - PyTorch fixtures written"
EL_REF_FIXTURES=$dir/fixtures.txt "$bin"
rc=$?
# the int8 engine on the same fixtures (SKIPs in a build without oneDNN)
EL_REF_FIXTURES=$dir/int8.txt "$bin8" || rc=1
exit $rc
