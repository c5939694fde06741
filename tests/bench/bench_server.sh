#!/usr/bin/env bash
# electra-server /score throughput and latency (see tests/bench/bench_server.py).
#   BENCH_SECONDS=4 BENCH_CONNS=1,8,32,128 tests/bench/bench_server.sh
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
for b in "$BUILD/bin/electra-server" "$BUILD/bench/bench_server_client" "$BUILD/bench/bench_server_engine"; do
  [ -x "$b" ] || { echo "bench_server: $b missing (run make)"; exit 1; }
done
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "bench_server: SKIP (python3-torch is needed to write the random checkpoint)"; exit 0
fi
exec /usr/bin/python3 tests/bench/bench_server.py
