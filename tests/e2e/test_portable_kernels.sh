#!/usr/bin/env bash
# The element-wise kernels stay vectorisable in a portable build (make
# PORTABLE=1, the Docker image): compiled with the portable flags, no function
# of the kernel files except the naive references calls libm per element
# (fmaf, expf, erff, ...). A call like that compiles and gives right answers,
# so no other test sees it; it once made the image's inference 4.5x slower
# than a native build (fmaf without FMA at compile time is a library call;
# this check finds the three functions it was in).
# Also checks that the portable build gives the engine kernels' loops their
# AVX2 and AVX-512 clones (target_clones, nn/op_fastmath.h): GELU's and
# LayerNorm's, which an AVX2 CPU runs (an AVX-512 one takes their intrinsics).
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
. tests/tap.sh
T=$(mktemp -d /tmp/el_portable.XXXXXX)
trap 'rm -rf "$T"' EXIT

# the portable flags of the Makefile (PORTABLE=1), without dependency output
flags=$(make -s --no-print-directory PORTABLE=1 print-cflags | sed 's/ -MMD//; s/ -MP//')
kernels="engine/infer_kernels.c engine/infer_layernorm.c nn/op_gelu.c nn/op_layernorm.c nn/op_attention.c"
LIBM='(fmaf|fma|expf|exp|erff|erf|erfcf|erfc|logf|log|tanhf|powf)'
for src in $kernels; do
  obj=$T/$(basename "$src" .c).o
  # shellcheck disable=SC2086
  if ! "$CC" $flags -Iinclude -Inn -Iengine -c "$src" -o "$obj" 2>"$T/cc.log"; then
    nok "$src compiles with the portable flags: $(head -n 3 "$T/cc.log")"
    continue
  fi
  # function -> libm calls, from the disassembly with relocations
  calls=$(objdump -dr --no-show-raw-insn "$obj" | awk -v libm="^$LIBM-" '
    /^[0-9a-f]+ <[^>]+>:$/ { fn = $2; gsub(/[<>:]/, "", fn); next }
    /R_X86_64_PLT32|R_X86_64_PC32/ && fn !~ /_naive/ {
      t = $NF; if (t ~ libm) { sub(/-0x[0-9a-f]+$/, "", t); print fn ":" t }
    }' | sort -u)
  if [ -z "$calls" ]; then
    ok "$src (portable): no libm call outside the naive references"
  else
    nok "$src (portable): libm called per element in: $(tr '\n' ' ' <<<"$calls")"
  fi
done

for pair in infer_kernels:gelu_loop infer_layernorm:layernorm_loop; do
  obj=${pair%%:*} fn=${pair#*:}
  clones=$(nm "$T/$obj.o" 2>/dev/null | grep -c "$fn\.arch_x86_64_v[34]")
  if [ "$(uname -m)" != x86_64 ]; then
    echo "ok - # SKIP clones are built for x86-64 only (this is $(uname -m))"
  elif [ "$clones" = 2 ]; then
    ok "portable $fn ($obj.c) has its x86-64-v3 and v4 clones"
  else
    nok "portable $fn ($obj.c) has its x86-64-v3 and v4 clones (found $clones)"
  fi
done
exit $((fails > 0))
