#!/usr/bin/env bash
# The layers of docs/ARCHITECTURE.md, as the build enforces them:
#  - a header across a layer boundary does not compile with the folder's
#    include flags (Makefile INC_<folder>), the allowed ones do;
#  - no source reaches around them with a relative "../" include (except
#    engine/internal/trainer_api.h, which re-exports the trainer's part);
#  - every exported el_ symbol of the built archives is declared in
#    include/electra/ (internal ones are el__), and in the hidden-visibility
#    archives (engine, nn) only public symbols have default visibility;
#  - no function of nn, engine, common, train or server is over 80 lines
#    unless a comment above it says why ("Long because", func_lengths.py).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
PY=${PYTHON:-/usr/bin/python3}
. tests/tap.sh

probe() { # folder header: 0 when `#include "header"` compiles with folder's flags
  local inc
  inc=$(make -s --no-print-directory "print-inc-$1") || return 2
  # shellcheck disable=SC2086
  (cd "$T" && printf '#include "%s"\nint el__probe;\n' "$2" |
     "$CC" -std=c11 -D_GNU_SOURCE $(sed "s| -I| -I$OLDPWD/|g; s|^-I|-I$OLDPWD/|; s|-iquote |-iquote $OLDPWD/|g" <<<"$inc") \
       -fsyntax-only -x c - 2>/dev/null)
}
T=$(mktemp -d /tmp/el_layers.XXXXXX)
trap 'rm -rf "$T"' EXIT
allowed=(
  "nn ops.h" "nn rng.h" "nn op_pool.h" "nn electra/error.h"
  "engine electra/electra.h" "engine ops.h" "engine weights.h" "engine infer_internal.h"
  "common el_cli.h" "common electra/error.h"
  "train electra/electra.h" "train ops.h" "train rng.h" "train trainer_api.h" "train el_cli.h" "train params.h"
  "server electra/electra.h" "server el_cli.h" "server srv_api.h"
)
forbidden=(
  "nn weights.h" "nn params.h" "nn el_cli.h"
  "engine params.h" "engine srv_api.h" "engine el_cli.h"
  "common ops.h" "common weights.h" "common params.h"
  "train weights.h" "train checkpoint.h" "train model_internal.h" "train infer_internal.h"
  "train tok_basic.h" "train srv_api.h"
  "server ops.h" "server rng.h" "server weights.h" "server model_internal.h" "server params.h"
  "server trainer_api.h" "server tok_basic.h"
)
for p in "${allowed[@]}"; do
  set -- $p
  if probe "$1" "$2"; then ok "layers: $1/ may include \"$2\""
  else nok "layers: $1/ may include \"$2\" (it does not compile)"; fi
done
for p in "${forbidden[@]}"; do
  set -- $p
  if probe "$1" "$2"; then nok "layers: $1/ must not reach \"$2\" (it compiles)"
  else ok "layers: $1/ cannot include \"$2\""; fi
done

around=$(grep -nE '#include "\.\./' nn/* engine/*.[ch] common/* train/* server/*.[ch] 2>/dev/null)
if [ -z "$around" ]; then ok "layers: no relative ../ include in nn, engine, common, train, server"
else nok "layers: relative ../ includes: $around"; fi

# Symbols. Public: every el_ name a declaration in include/electra/ names.
public=$(grep -ohE '\bel_[a-z0-9][a-z0-9_]*\b' include/electra/*.h | sort -u)
libs=$(ls "$BUILD"/libelectra*.a 2>/dev/null)
if [ -z "$libs" ]; then nok "symbols: no archives in $BUILD (run make)"; exit 1; fi
for lib in $libs; do
  exported=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $3 ~ /^el_[^_]/ {print $3}' | sort -u)
  stray=$(comm -23 <(echo "$exported" | grep -v '^$') <(echo "$public"))
  if [ -z "$stray" ]; then ok "symbols: every el_ symbol of $(basename "$lib") is declared in include/electra/"
  else nok "symbols: $(basename "$lib") exports el_ symbols not in include/electra/ (make them el__): $(echo $stray)"; fi
done
for lib in "$BUILD/libelectra.a" "$BUILD/libelectra_nn.a"; do
  visible=$(readelf -sW "$lib" 2>/dev/null |
    awk '$5 == "GLOBAL" && $6 == "DEFAULT" && $7 != "UND" && ($4 == "FUNC" || $4 == "OBJECT") {print $8}' | sort -u)
  stray=$(comm -23 <(echo "$visible" | grep -v '^$') <(echo "$public"))
  n=$(echo "$visible" | grep -c .)
  if [ -z "$stray" ]; then ok "visibility: $(basename "$lib"): the $n default-visibility symbols are all public API"
  else nok "visibility: $(basename "$lib"): internal symbols with default visibility: $(echo $stray)"; fi
done
n_internal=$(nm -g --defined-only "$BUILD"/libelectra_nn.a | awk 'NF == 3 && $3 ~ /^el__/' | wc -l)
if [ "$n_internal" -gt 0 ]; then ok "symbols: libelectra_nn.a defines $n_internal el__ symbols (the op kit is internal)"
else nok "symbols: libelectra_nn.a defines no el__ symbol"; fi
long=$("$PY" tests/e2e/func_lengths.py 80 nn engine common train server) || nok "func_lengths.py failed"
unstated=$(grep ' unstated$' <<<"$long")
if [ -z "$unstated" ]; then ok "shape: no function over 80 lines without its reason ($(grep -c . <<<"$long") with one)"
else nok "shape: functions over 80 lines without a \"Long because\" comment: $(echo $unstated)"; fi
exit $((fails > 0))
