#!/usr/bin/env bash
# Forward-pass benchmark (`make bench`): the engine against PyTorch on the same
# random ELECTRA-Small-shaped discriminator (12 layers, hidden 256, 4 heads, FFN
# 1024, embedding 128, vocab 30522), 2 threads, batches 1/8/32 at length 128 and
# a mixed-length batch, in one run. Also measures OpenBLAS's own SGEMM GFLOP/s on
# this machine and the resident memory of a process that only loads the model.
# Prints a markdown table. Knobs: BENCH_SECONDS (per case, default 3),
# BENCH_THREADS (default 2). Run it on an otherwise idle machine: OpenBLAS's
# threads (this engine's and PyTorch's) wait for each other with sched_yield,
# so any competing process slows both sides several-fold, and nice -20 or
# real-time priority only changes how (the load average is printed before and
# after).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
SECONDS_PER_CASE=${BENCH_SECONDS:-3}
THREADS=${BENCH_THREADS:-2}
bin=$BUILD/bench/bench_forward
[ -x "$bin" ] || { echo "bench_forward.sh: $bin not built (run make)"; exit 1; }
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "bench_forward.sh: SKIP, PyTorch ($PYTHON) is needed to write the random checkpoint"
  exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/electra-bench-forward.XXXXXX")
trap 'rm -rf "$dir"' EXIT

. tests/bench/small_checkpoint.sh
make_small_checkpoint "$dir"
mixed=$(mixed_lengths)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (other processes skew the numbers)"
"$bin" --load-only "$dir/small" >"$dir/load.txt"
"$bin" --sgemm --threads "$THREADS" --seconds "$SECONDS_PER_CASE" >"$dir/sgemm.txt"
"$bin" --model "$dir/small" --threads "$THREADS" --seconds "$SECONDS_PER_CASE" \
  --mixed "$mixed" >"$dir/engine.txt"
"$PYTHON" tests/bench/bench_forward.py --model "$dir/small" --threads "$THREADS" \
  --seconds "$SECONDS_PER_CASE" --mixed "$mixed" >"$dir/torch.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

"$PYTHON" - "$dir" "$THREADS" <<'EOF'
import sys
d, threads = sys.argv[1], sys.argv[2]

def rows(name):
    out = {}
    for line in open("%s/%s" % (d, name)):
        w = line.split()
        if w and w[0] == "case":
            out[w[1]] = w[2:]
    return out

eng, tor = rows("engine.txt"), rows("torch.txt")
sg = [line.split() for line in open(d + "/sgemm.txt") if line.startswith("sgemm")]
peak = max(float(s[4]) for s in sg)
load = open(d + "/load.txt").read().split()
rss_kb, hwm_kb, file_bytes = int(load[1]), int(load[2]), int(load[3])

print("ELECTRA-Small-shaped discriminator, %s threads; ms = best run per batch "
      "(medians in the raw lines below)" % threads)
print()
print("| batch | seqs | tokens | engine ms | engine tok/s | PyTorch ms | PyTorch tok/s "
      "| speed-up | engine GFLOP/s | % of SGEMM | PyTorch GFLOP/s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for name, e in eng.items():
    t = tor.get(name)
    seqs, toks, ems, etps, egf = e[0], e[1], float(e[2]), float(e[4]), float(e[5])
    if t:
        tms, ttps, tgf = float(t[2]), float(t[4]), float(t[5])
        tcols = "%.1f | %.0f | %.2fx" % (tms, ttps, etps / ttps)
        tg = "%.1f" % tgf
    else:
        tcols, tg = "- | - | -", "-"
    print("| %s | %s | %s | %.1f | %.0f | %s | %.1f | %.0f%% | %s |" %
          (name, seqs, toks, ems, etps, tcols, egf, 100 * egf / peak, tg))
print()
for s in sg:
    print("OpenBLAS SGEMM %sx%sx%s (row-major, B transposed), %s threads: %s GFLOP/s" %
          (s[1], s[2], s[3], threads, s[4]))
print("SGEMM reference for %% of SGEMM: %.1f GFLOP/s (the better of the two)" % peak)
mb = file_bytes / 2**20
print("Resident memory after loading (load only): %.1f MiB (peak %.1f MiB); "
      "model.safetensors %.1f MiB; peak - file = %+.1f MiB (target <= +32)" %
      (rss_kb / 1024, hwm_kb / 1024, mb, hwm_kb / 1024 - mb))
print()
print("raw: batch seqs tokens best_ms median_ms tok/s GFLOP/s [engine: peak RSS kB]")
for name in eng:
    print("  engine  %s %s" % (name, " ".join(eng[name])))
    if name in tor:
        print("  pytorch %s %s" % (name, " ".join(tor[name])))
print()

def verdict(ok):
    return "met" if ok else "MISSED"

def ratio(name):
    e, t = eng.get(name), tor.get(name)
    return float(e[4]) / float(t[4]) if e and t else float("nan")

r1, r32 = ratio("b1x128"), ratio("b32x128")
eff = float(eng["b32x128"][5]) / peak if "b32x128" in eng else float("nan")
print("Targets: batch 1 >= 3x PyTorch: %.2fx %s; batch 32 >= 2x: %.2fx %s; "
      "batch 32 >= 65%% of SGEMM: %.0f%% %s; memory <= file + 32 MiB: %s" %
      (r1, verdict(r1 >= 3), r32, verdict(r32 >= 2), 100 * eff, verdict(eff >= 0.65),
       verdict(hwm_kb / 1024 - mb <= 32)))
EOF
