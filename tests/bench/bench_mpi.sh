#!/usr/bin/env bash
# Data-parallel pretraining on this machine (issue 18): tokens/s of one
# process with 2 threads against 2 MPI ranks with 1 thread each (the same
# global batch, the same arithmetic), alternating, ROUNDS rounds each; the
# share of rank 0's step time spent in the gradient MPI_Allreduce and the
# bytes each rank contributes per step (from the run's closing line); then
# the same sum alone after a barrier (bench_allreduce: the transfer without
# waiting for the other rank), the most overlapping it with the backward
# pass could save.
# A measurement, not a test. Skips without MPI.
#   BENCH_STEPS (30) BENCH_ROUNDS (2) BENCH_PRESET (tiny) BENCH_BATCH (32) BENCH_SEQ (128)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
STEPS=${BENCH_STEPS:-30}
ROUNDS=${BENCH_ROUNDS:-2}
PRESET=${BENCH_PRESET:-tiny}
BATCH=${BENCH_BATCH:-32}
SEQ=${BENCH_SEQ:-128}
if "$BIN" --version | grep -q "data-parallel: not built"; then
  echo "SKIP: electra-train built without MPI (make MPI=1)"; exit 0
fi
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (openmpi-bin)"; exit 0; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
T=$(mktemp -d /tmp/el_bench_mpi.XXXXXX)
trap 'rm -rf "$T"' EXIT

"$PY" - "$T/text.txt" <<'EOF'
import random, sys
r = random.Random(3)
words = [("w%d" % i) for i in range(400)] + "the a of to and in is was for on".split() * 20
with open(sys.argv[1], "w") as f:
    for _ in range(3000):
        for _ in range(r.randint(2, 6)):
            f.write(" ".join(r.choice(words) for _ in range(r.randint(8, 30))) + " .\n")
        f.write("\n")
EOF
"$BIN" vocab --input "$T/text.txt" --vocab-size 1000 --out "$T/vocab.txt" 2>/dev/null || exit 1
ARGS=(pretrain --input "$T/text.txt" --vocab "$T/vocab.txt" --preset "$PRESET" --max-steps "$STEPS"
      --batch-size "$BATCH" --seq-len "$SEQ" --save-every 0 --val-every 0 --val-examples 8
      --log-every 5 --seed 1 --cache "$T/tokens.bin")
# the token cache once, outside the timings
"$BIN" "${ARGS[@]}" --max-steps 1 --out "$T/warm" >/dev/null 2>&1

# tokens/s over the train rows after the first (warm-up) of metrics.jsonl
rate() {
  "$PY" - "$1/metrics.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows = [r for r in rows if r.get("kind") == "train"][1:]
print("%.0f" % (sum(r["tokens_per_s"] for r in rows) / len(rows)) if rows else "nan")
EOF
}

echo "machine: $(nproc) CPUs (shared with other work while measured); preset $PRESET, global batch $BATCH x $SEQ, $STEPS steps"
printf '%-6s %-22s %12s  %s\n' round config tokens/s "allreduce (rank 0)"
one=() two=()
for round in $(seq 1 "$ROUNDS"); do
  rm -rf "$T/a" "$T/b"
  "$BIN" "${ARGS[@]}" --threads 2 --out "$T/a" >/dev/null 2>"$T/a.log"
  r1=$(rate "$T/a")
  mpirun --oversubscribe --bind-to core -np 2 "$BIN" "${ARGS[@]}" --threads 1 --out "$T/b" \
    >/dev/null 2>"$T/b.log"
  r2=$(rate "$T/b")
  comm=$(grep -o "gradient sums.*" "$T/b.log" | sed 's/gradient sums (MPI_Allreduce, rank 0): //')
  printf '%-6s %-22s %12s\n' "$round" "1 rank x 2 threads" "$r1"
  printf '%-6s %-22s %12s  %s\n' "$round" "2 ranks x 1 thread" "$r2" "$comm"
  one+=("$r1")
  two+=("$r2")
done
mb=$(grep -o "[0-9.]* MB per step per rank" "$T/b.log" | tail -1 | awk '{print $1}')
echo "the sum alone (after a barrier: transfer, no waiting), $mb MB:" \
  "$(mpirun --oversubscribe --bind-to core -np 2 "$BUILD/bench/bench_allreduce" "$mb" 20)"
"$PY" - "${one[*]}" "${two[*]}" <<'EOF'
import sys
a = [float(x) for x in sys.argv[1].split()]
b = [float(x) for x in sys.argv[2].split()]
print("mean: 1x2 %.0f tok/s, 2x1 %.0f tok/s, ratio 2x1 / 1x2 = %.2f" % (
    sum(a) / len(a), sum(b) / len(b), (sum(b) / len(b)) / (sum(a) / len(a))))
EOF
