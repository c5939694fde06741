#!/usr/bin/env bash
# The AVX2 code path, measured on an AVX-512 machine: the targets of
# bench_ort.sh and bench_train.sh hold on AVX2-only CPUs too, and a session
# may only have an AVX-512 one. This builds the project for Haswell (AVX2 +
# FMA, no AVX-512) into $BUILD-avx2 and reruns both benches with
#   ELECTRA_GEMM=avx2           the engine's own packed-weight kernel on its
#                               AVX2 path (it is picked at run time, so the
#                               build flags alone would still run AVX-512);
#   OPENBLAS_CORETYPE=Haswell   OpenBLAS's AVX2 kernels, for the engine and
#                               for PyTorch's Linear alike;
#   ATEN_CPU_CAPABILITY=avx2    PyTorch's own kernels on their AVX2 path;
#   ELECTRA_BF16=off            no bf16 products (an AVX2 CPU has none): the
#                               trainer's --precision auto is fp32, and
#                               bench_train.sh prints no "c bf16" row.
# ONNX Runtime has no such switch: its MLAS kernels pick AVX-512 whenever the
# CPU has it, so against ORT this run is stricter than a real AVX2 machine.
# What it cannot show is another CPU's caches and clocks: a real AVX2-only
# machine's numbers are still the ones that count.
# Not part of `make bench` (the file name does not start with bench_): run
#   tests/bench/avx2_path.sh [THREADS]     (default 2; bench_train.sh's THREADS)
# Environment: as bench_ort.sh and bench_train.sh (BENCH_SECONDS, ...).
set -eu
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
AVX2_BUILD=$BUILD-avx2
if ! grep -qw avx512f /proc/cpuinfo; then
  echo "avx2_path.sh: this CPU has no AVX-512, so bench_ort.sh and bench_train.sh already run"
  echo "the AVX2 path; nothing to emulate."
  exit 0
fi
echo "== building $AVX2_BUILD with -march=haswell"
make --no-print-directory -j"$(nproc)" BUILD="$AVX2_BUILD" OPT="-O3 -march=haswell" \
  "$AVX2_BUILD/bench/bench_forward" "$AVX2_BUILD/bench/bench_train" >/dev/null
export ELECTRA_GEMM=avx2 OPENBLAS_CORETYPE=Haswell ATEN_CPU_CAPABILITY=avx2 ELECTRA_BF16=off
# ONNX Runtime's npm install is shared with the main build when it exists there.
[ -d "$BUILD/onnxruntime" ] && export ORT_DIR=${ORT_DIR:-$BUILD/onnxruntime}
echo "== inference: engine (AVX2) and PyTorch (AVX2) against ONNX Runtime (AVX-512)"
BUILD=$AVX2_BUILD bash tests/bench/bench_ort.sh
echo
echo "== training step: engine and PyTorch both on AVX2 kernels"
BUILD=$AVX2_BUILD BENCH_AVX512_TABLE=0 bash tests/bench/bench_train.sh "${1:-2}"
