#!/usr/bin/env bash
# The layers of docs/ARCHITECTURE.md, as the build enforces them:
#  - a header across a layer boundary does not compile with the folder's
#    include flags (Makefile INC_<folder>), the allowed ones do;
#  - no source reaches around them with a relative "../" include (except
#    engine/internal/trainer_api.h, which re-exports the trainer's part);
#  - every exported el_ symbol of the built archives is declared in
#    include/electra/ (internal ones are el__), and in the hidden-visibility
#    archives (engine, nn) only public symbols have default visibility;
#  - no function of nn, engine, common, lang, train or server is over 80
#    lines unless a comment above it says why ("Long because", func_lengths.py);
#  - one definition per global name across the archives, no call circle
#    between source files (link_graph.py), server/openapi.c as generated.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
PY=${PYTHON:-/usr/bin/python3}
. tests/tap.sh

probe() { # folder header: 0 when `#include "header"` compiles with folder's flags
  local inc
  inc=$(make -s --no-print-directory "print-inc-${1//\//-}") || return 2
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
  "lang electra/error.h" "lang learner.h" "lang strmap.h" "lang trainer_api.h"
  "train/report el_cli.h" "train/report progress.h" "train/report svg.h" "train/report learner.h"
  "train/data progress.h" "train/data data_loader.h" "train/data data_cache.h"
  "train/model tmodel.h" "train/model data_loader.h" "train/model ops.h"
  "train/vocab vocab_builder.h" "train/vocab data_pretok.h"
  "train/pretrain objective.h" "train/pretrain tmodel.h" "train/pretrain vocab_builder.h" "train/pretrain el_cli.h"
  "train/finetune finetune.h" "train/finetune objective.h" "train/finetune finetune_run.h"
  "train/cmd commands.h" "train/cmd finetune.h" "train/cmd pretrain_run.h" "train/cmd electra/electra.h"
  "train/cmd trainer_api.h" "train/cmd rng.h"
  "check electra/electra.h" "check match.h" "check learner.h" "check dict.h" "check support_api.h"
  "train/cmd check.h"
  "server electra/electra.h" "server el_cli.h" "server srv_api.h" "server support_api.h" "server check.h" "server dict.h"
)
# train/'s sub-folders in their order: report < data < model < vocab <
# pretrain < finetune < cmd; each is refused the ones above it.
forbidden=(
  "nn weights.h" "nn params.h" "nn el_cli.h" "nn learner.h"
  "engine params.h" "engine srv_api.h" "engine el_cli.h" "engine learner.h"
  "common ops.h" "common weights.h" "common params.h" "common learner.h"
  "lang ops.h" "lang el_cli.h" "lang weights.h" "lang params.h" "lang tmodel.h" "lang srv_api.h"
  "train/report data_loader.h" "train/report tmodel.h" "train/report commands.h"
  "train/data tmodel.h" "train/data objective.h" "train/data finetune.h" "train/data el_cli.h"
  "train/model objective.h" "train/model vocab_builder.h" "train/model finetune.h" "train/model el_cli.h"
  "train/vocab tmodel.h" "train/vocab objective.h"
  "train/pretrain finetune.h" "train/pretrain ged_synth.h" "train/pretrain commands.h"
  "train/finetune commands.h" "train/finetune check.h"
  "check el_cli.h" "check weights.h" "check ops.h" "check srv_api.h" "check params.h" "check trainer_api.h"
  "train/cmd weights.h" "train/cmd checkpoint.h" "train/cmd model_internal.h" "train/cmd infer_internal.h"
  "train/cmd tok_basic.h" "train/cmd srv_api.h"
  "server ops.h" "server rng.h" "server weights.h" "server model_internal.h" "server params.h"
  "server trainer_api.h" "server tok_basic.h" "server grow.h"
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

around=$(grep -nE '#include "\.\./' nn/* engine/*.[ch] common/* lang/* check/* train/*/* server/*.[ch] 2>/dev/null)
if [ -z "$around" ]; then ok "layers: no relative ../ include in nn, engine, common, lang, train, server"
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
long=$("$PY" tests/e2e/func_lengths.py 80 nn engine common lang check train/* server) || nok "func_lengths.py failed"
unstated=$(grep ' unstated$' <<<"$long")
if [ -z "$unstated" ]; then ok "shape: no function over 80 lines without its reason ($(grep -c . <<<"$long") with one)"
else nok "shape: functions over 80 lines without a \"Long because\" comment: $(echo $unstated)"; fi

# One definition per name and no call circles between source files, over
# every archive (link_graph.py); the served /openapi.json is what
# server/gen_openapi.py writes.
graph=$("$PY" tests/e2e/link_graph.py "$BUILD"/libelectra*.a)
if [ -z "$graph" ]; then ok "link graph: one definition per name, no call circle between files"
else nok "link graph: $(echo "$graph" | tr '\n' ';')"; fi
if "$PY" server/gen_openapi.py --check >/dev/null; then ok "openapi: server/openapi.c is what gen_openapi.py writes"
else nok "openapi: server/openapi.c differs from gen_openapi.py's output (run python3 server/gen_openapi.py)"; fi
exit $((fails > 0))
