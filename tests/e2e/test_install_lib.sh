#!/usr/bin/env bash
# The installable library: `make install DESTDIR=... PREFIX=/usr/local` puts
# include/electra/*.h, libelectra.a, a versioned libelectra.so (soname and
# development links) exporting the el_ API alone, electra.pc and both man
# pages in place; docs/examples/score.c builds against the installed copy
# with `pkg-config --cflags --libs electra` (and statically with --static)
# and scores a sentence on a tiny random model. Runtime: ~15 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
. tests/tap.sh

for b in electra-server electra-train; do
  [ -x "$BUILD/bin/$b" ] || { echo "ok - # SKIP $BUILD/bin/$b not built"; exit 0; }
done
command -v pkg-config >/dev/null || { echo "ok - # SKIP no pkg-config"; exit 0; }
tmp=$(mktemp -d /tmp/el-install-lib-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/root
ver=$(sed -n 's/^#define EL_VERSION "\(.*\)"/\1/p' include/electra/electra.h)
if make --no-print-directory -s BUILD="$BUILD" -o "$BUILD/bin/electra-server" -o "$BUILD/bin/electra-train" \
  install DESTDIR="$d" PREFIX=/usr/local >"$tmp/install.log" 2>&1; then
  ok "make install DESTDIR=$d PREFIX=/usr/local"
else
  nok "make install"; sed 's/^/#   /' "$tmp/install.log" | tail -10; exit 1
fi
lib=$d/usr/local/lib
for h in include/electra/*.h; do
  check "$h installed" cmp -s "$h" "$d/usr/local/$h"
done
check "libelectra.a installed" test -f "$lib/libelectra.a"
check "libelectra.so.$ver installed, soname libelectra.so.${ver%%.*}" \
  eval "objdump -p '$lib/libelectra.so.$ver' | grep -q 'SONAME *libelectra.so.${ver%%.*}\$'"
check "libelectra.so -> libelectra.so.${ver%%.*} -> libelectra.so.$ver" \
  test "$(readlink "$lib/libelectra.so")" = "libelectra.so.${ver%%.*}" -a \
       "$(readlink "$lib/libelectra.so.${ver%%.*}")" = "libelectra.so.$ver"
others=$(nm -D --defined-only "$lib/libelectra.so.$ver" | awk '{ print $3 }' | grep -v '^el_[a-z]' | head -5)
check "the shared library exports el_ names alone${others:+ (also: $others)}" test -z "$others"
check "it exports the API of the example (el_model_load, el_run_replaced, el_word_prob)" \
  eval "nm -D --defined-only '$lib/libelectra.so.$ver' | grep -c ' T el_\(model_load\|run_replaced\|word_prob\)\$' | grep -qx 3"
for p in electra-train electra-server; do
  man1=$d/usr/local/share/man/man1/$p.1
  check "man page $p.1 installed and renders" \
    eval "MANWIDTH=100 man -l '$man1' 2>/dev/null | grep -q -- '--help'"
done
check "electra-train.1 carries every command's --help" \
  eval "MANWIDTH=200 man -l '$d/usr/local/share/man/man1/electra-train.1' 2>/dev/null | grep -c '==== electra-train .* --help ====' | grep -qx 6"

export PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_LIBDIR=$lib/pkgconfig
check "pkg-config --modversion electra = $ver" test "$(pkg-config --modversion electra 2>&1)" = "$ver"
flags=$(pkg-config --cflags --libs electra)
if cc -std=c11 -Wall -Wextra -Werror docs/examples/score.c $flags -o "$tmp/score" 2>"$tmp/cc.log"; then
  ok "docs/examples/score.c builds against the installed library ($flags)"
else
  nok "docs/examples/score.c does not build"; sed 's/^/#   /' "$tmp/cc.log" | head; exit 1
fi
check "the example is linked to the installed libelectra.so.${ver%%.*}" \
  eval "LD_LIBRARY_PATH='$lib' ldd '$tmp/score' | grep -q '$lib/libelectra.so.${ver%%.*}'"
# static: the .a by path, the rest from electra.pc's Libs.private
static=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --define-variable=prefix="$d/usr/local" --static --libs electra |
  sed 's/-lelectra//')
if cc -std=c11 -I"$d/usr/local/include" docs/examples/score.c "$lib/libelectra.a" $static \
  -o "$tmp/score-static" 2>"$tmp/cc.log"; then
  ok "the example links statically with libelectra.a and pkg-config --static's libraries"
else
  nok "static link failed"; sed 's/^/#   /' "$tmp/cc.log" | head
fi

if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "no torch at $PY: cannot make the tiny model to run the example on"; exit $((fails > 0))
fi
"$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$tmp/tiny" --hidden 32 \
  --layers 2 --heads 2 --intermediate 64 --max-position 128 --seed 1 >/dev/null ||
  { nok "make_checkpoint.py failed"; exit 1; }
text="She go to school yesterday."
out=$(LD_LIBRARY_PATH=$lib "$tmp/score" "$tmp/tiny" "$text" 2>&1)
check "the example scores each word: 6 lines 'word<TAB>P' with 0 < P < 1" \
  eval "awk -F'\t' 'NF == 2 && \$2 > 0 && \$2 < 1' <<<'$out' | wc -l | grep -qx 6"
check "its words are the text's (She go to school yesterday .)" \
  test "$(cut -f1 <<<"$out" | tr '\n' ' ')" = "She go to school yesterday . "
[ -x "$tmp/score-static" ] &&
  check "the static build prints the same" test "$("$tmp/score-static" "$tmp/tiny" "$text" 2>&1)" = "$out"
err=$(LD_LIBRARY_PATH=$lib "$tmp/score" "$tmp/nope" x 2>&1)
rc=$?
check "the example fails with the library's message for a missing model (rc $rc: $err)" \
  eval "[ $rc -eq 1 ] && grep -q '^score: .*nope' <<<'$err'"
echo "# $out" | tr '\n' ' '; echo
exit $((fails > 0))
