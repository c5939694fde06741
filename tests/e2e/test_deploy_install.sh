#!/usr/bin/env bash
# `make install PREFIX=... DESTDIR=...` puts the binaries, the systemd unit
# (ExecStart rewritten to PREFIX), the example options and the --help texts
# where the Makefile says; the installed binaries run; `make uninstall`
# removes every file it installed.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
. tests/tap.sh

for b in electra-server electra-train; do
  if [ ! -x "$BUILD/bin/$b" ]; then
    echo "ok - # SKIP $BUILD/bin/$b not built"
    exit 0
  fi
done
tmp=$(mktemp -d /tmp/el-deploy-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# -o: the binaries count as up to date, so this tests installing, not building.
mk() { make --no-print-directory -s BUILD="$BUILD" -o "$BUILD/bin/electra-server" \
  -o "$BUILD/bin/electra-train" "$@"; }

one_prefix() { # PREFIX UNITDIR-relative-to-DESTDIR [extra make args]
  local prefix=$1 unitdir=$2; shift 2
  local d=$tmp/root$(echo "$prefix" | tr / _)
  mkdir -p "$d"
  if ! mk install PREFIX="$prefix" DESTDIR="$d" "$@" >"$tmp/install.log" 2>&1; then
    nok "make install PREFIX=$prefix"
    sed 's/^/#   /' "$tmp/install.log" | tail -10
    return
  fi
  ok "make install PREFIX=$prefix DESTDIR=$d"
  for b in electra-server electra-train; do
    check "$prefix/bin/$b installed, mode 755" \
      test "$(stat -c %a "$d$prefix/bin/$b" 2>/dev/null)" = 755
  done
  check "installed electra-server runs (--version)" eval "\"$d$prefix/bin/electra-server\" --version >/dev/null"
  local unit=$d$unitdir/electra-server.service
  check "unit installed at $unitdir, mode 644" test "$(stat -c %a "$unit" 2>/dev/null)" = 644
  check "unit ExecStart=$prefix/bin/electra-server" \
    grep -qx "ExecStart=$prefix/bin/electra-server" "$unit"
  check "unit differs from deploy/ only by the prefix" \
    cmp -s "$unit" <(sed "s|/usr/local/|$prefix/|g" deploy/electra-server.service)
  local env=$d$prefix/share/electra/electra-server.env
  check "example env file at $prefix/share/electra/" cmp -s "$env" deploy/electra-server.env
  check "int8 drop-in at $prefix/share/electra/" \
    cmp -s "$d$prefix/share/electra/electra-server-int8.conf" deploy/electra-server-int8.conf
  local doc=$d$prefix/share/doc/electra
  check "electra-server.txt is the --help text" \
    grep -q -- '--model' "$doc/electra-server.txt"
  check "electra-server.txt matches the installed binary's --help" \
    grep -qF -- "$("$BUILD/bin/electra-server" --help | head -1)" "$doc/electra-server.txt"
  check "electra-train.txt has the command list" grep -q 'pretrain' "$doc/electra-train.txt"
  local n
  n=$(find "$d" -type f | wc -l)
  # 2 binaries, unit, env, int8 drop-in, 2 help texts, 2 man pages, 7 headers,
  # libelectra.a, libelectra.so.VERSION, electra.pc (test_install_lib.sh checks the library)
  check "install wrote 19 files (got $n)" test "$n" -eq 19
  check "man pages installed" test -f "$d$prefix/share/man/man1/electra-train.1" -a \
    -f "$d$prefix/share/man/man1/electra-server.1"
  check "electra-train.txt has recipe's and corrupt's --help" \
    eval "grep -q '^usage: electra-train recipe ged' '$doc/electra-train.txt' && grep -q '^usage: electra-train corrupt' '$doc/electra-train.txt'"
  if mk uninstall PREFIX="$prefix" DESTDIR="$d" "$@" >"$tmp/uninstall.log" 2>&1; then
    ok "make uninstall PREFIX=$prefix"
  else
    nok "make uninstall PREFIX=$prefix"
    sed 's/^/#   /' "$tmp/uninstall.log" | tail -10
  fi
  local left
  left=$(find "$d" ! -type d)
  check "uninstall left no file behind" test -z "$left"
  [ -n "$left" ] && sed 's/^/#   left: /' <<<"$left"
}

one_prefix /usr/local /usr/local/lib/systemd/system
one_prefix /opt/electra /etc/systemd/system SYSTEMDUNITDIR=/etc/systemd/system
exit $((fails > 0))
