#!/usr/bin/env bash
# Train-step throughput, ELECTRA objective, batch 32 x 128, for the `tiny` and
# `small` presets: build/bench/bench_train (this trainer) against
# tests/bench/bench_train.py (the same step in PyTorch eager: same shapes,
# same objective, same optimizer work), in the same run, same thread count.
# Prints tokens/s, ms/step, the speed ratio and each process's peak RSS; on a
# CPU with AVX512_BF16 also a "c bf16" row, the trainer with --precision
# bf16's products, and its ratio to the fp32 row.
# And the floor of a step: its matrix-product FLOPs at OpenBLAS's SGEMM rate
# (bench_train.c), beside the time a 3x-PyTorch target would need.
#
# Both sides use the same OpenBLAS (PyTorch's Linear calls it too). OpenBLAS
# 0.3.21 may not know the CPU (e.g. Zen 5 is run with Haswell AVX2 kernels);
# when the CPU has AVX-512 the table is repeated with
# OPENBLAS_CORETYPE=SkylakeX for BOTH sides (BENCH_AVX512_TABLE=0 leaves it out:
# tests/bench/avx2_path.sh measures the AVX2 path alone).
#   tests/bench/bench_train.sh [THREADS]        (default 2)
# Environment: BENCH_STEPS_TINY / BENCH_STEPS_SMALL (C timed steps, default
# 10 / 4), BENCH_PT_STEPS_TINY / BENCH_PT_STEPS_SMALL (PyTorch, default 4 / 2).
# Load from other processes distorts everything: the load average is printed
# before and after each pair of runs.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
THREADS=${1:-2}
BIN=$BUILD/bench/bench_train
[ -x "$BIN" ] || make --no-print-directory "$BIN" >/dev/null || { echo "cannot build $BIN"; exit 1; }
have_torch=1
"$PYTHON" -c 'import torch' 2>/dev/null || have_torch=0
# a "c bf16" row (--precision bf16's products) where the CPU has AVX512_BF16
bf16=0
grep -qw avx512_bf16 /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo && [ "${ELECTRA_BF16:-}" != off ] && bf16=1

declare -A c_steps=([tiny]=${BENCH_STEPS_TINY:-10} [small]=${BENCH_STEPS_SMALL:-4})
declare -A p_steps=([tiny]=${BENCH_PT_STEPS_TINY:-4} [small]=${BENCH_PT_STEPS_SMALL:-2})

field() { # json key
  sed -n "s/.*\"$2\": \\([^,}]*\\).*/\\1/p" <<<"$1" | tr -d '"'
}

run_table() { # label, env...
  local label=$1; shift
  echo "## $label (threads $THREADS)"
  printf '%-6s %-10s %10s %11s %13s %10s\n' preset impl ms/step tokens/s peak_RSS_MB speedup
  for preset in tiny small; do
    local l0; l0=$(cut -d' ' -f1 /proc/loadavg)
    local c p=""
    c=$(env "$@" "$BIN" "$preset" "${c_steps[$preset]}" "$THREADS") || { echo "bench_train failed"; return 1; }
    if [ $have_torch = 1 ]; then
      p=$(env "$@" OMP_NUM_THREADS="$THREADS" "$PYTHON" tests/bench/bench_train.py "$preset" \
        "${p_steps[$preset]}" "$THREADS") || p=""
    fi
    local l1; l1=$(cut -d' ' -f1 /proc/loadavg)
    local ct; ct=$(field "$c" tokens_per_s)
    printf '%-6s %-10s %10s %11s %13s %10s\n' "$preset" electra.c "$(field "$c" ms_per_step)" "$ct" \
      "$(field "$c" peak_rss_mb)" ""
    if [ -n "$p" ]; then
      local pt; pt=$(field "$p" tokens_per_s)
      printf '%-6s %-10s %10s %11s %13s %10s\n' "$preset" pytorch "$(field "$p" ms_per_step)" "$pt" \
        "$(field "$p" peak_rss_mb)" "$(awk -v a="$ct" -v b="$pt" 'BEGIN{printf "%.2fx", a/b}')"
    else
      echo "$preset pytorch: skipped (no torch for $PYTHON)"
    fi
    if [ $bf16 = 1 ]; then # the same step with --precision bf16's products
      local cb; cb=$(env "$@" EL_BENCH_PRECISION=bf16 "$BIN" "$preset" "${c_steps[$preset]}" "$THREADS") || cb=""
      if [ -n "$cb" ]; then
        local bt; bt=$(field "$cb" tokens_per_s)
        printf '%-6s %-10s %10s %11s %13s %10s\n' "$preset" "c bf16" "$(field "$cb" ms_per_step)" "$bt" \
          "$(field "$cb" peak_rss_mb)" "$([ -n "$p" ] && awk -v a="$bt" -v b="$(field "$p" tokens_per_s)" 'BEGIN{printf "%.2fx", a/b}')"
        echo "#   bf16 products against fp32: $(awk -v a="$bt" -v b="$ct" 'BEGIN{printf "%.2fx", a/b}') the tokens a second (last loss: fp32 $(field "$c" loss_last), bf16 $(field "$cb" loss_last))"
      fi
    fi
    echo "#   load average $l0 -> $l1; $c"
    local fl; fl=$(field "$c" floor_ms)
    if [ -n "$p" ]; then
      echo "#   floor: $(field "$c" gflop_per_step) GFLOP of matrix products per step at OpenBLAS's $(field "$c" sgemm_gflops) GFLOP/s = $fl ms; 3x PyTorch would need $(awk -v m="$(field "$p" ms_per_step)" 'BEGIN{printf "%.1f", m / 3}') ms"
    fi
    [ -n "$p" ] && echo "#   $p"
  done
}

run_table "default environment" EL_BENCH=1
if [ "${BENCH_AVX512_TABLE:-1}" != 0 ] && grep -qw avx512f /proc/cpuinfo && grep -qw avx512bw /proc/cpuinfo; then
  echo
  run_table "OPENBLAS_CORETYPE=SkylakeX (AVX-512 SGEMM kernels) for both" OPENBLAS_CORETYPE=SkylakeX
fi
