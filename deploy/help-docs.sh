#!/usr/bin/env bash
# Writes the man-style help of both binaries as plain text, for `make install`:
#   deploy/help-docs.sh BINDIR OUTDIR
# OUTDIR/electra-server.txt  = electra-server --help
# OUTDIR/electra-train.txt   = electra-train --help, then each command's --help
# A binary whose --help fails stops the install (that is a bug to fix).
set -euo pipefail
bindir=$1 outdir=$2
mkdir -p "$outdir"

{
  "$bindir/electra-server" --version 2>/dev/null || true
  echo
  "$bindir/electra-server" --help
} >"$outdir/electra-server.txt.tmp"
mv "$outdir/electra-server.txt.tmp" "$outdir/electra-server.txt"

{
  "$bindir/electra-train" --help
  for cmd in vocab pretrain finetune eval "recipe ged" corrupt; do
    # A command's --help goes to stdout or stderr depending on the command;
    # keep whichever it printed, as long as it succeeded.
    if text=$("$bindir/electra-train" $cmd --help 2>&1); then
      printf '\n\n==== electra-train %s --help ====\n\n%s\n' "$cmd" "$text"
    fi
  done
} >"$outdir/electra-train.txt.tmp"
mv "$outdir/electra-train.txt.tmp" "$outdir/electra-train.txt"
