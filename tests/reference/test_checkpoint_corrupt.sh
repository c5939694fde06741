#!/usr/bin/env bash
# Checkpoint loader against PyTorch-written fixtures: valid checkpoints of the
# four architectures load bit-exactly and survive save -> reload; every
# corrupted copy is refused with the right code and a message naming the
# file, the tensor or field, expected and found; a full disk during save is
# EL_ENOSPC and leaves nothing behind. Fixtures come from
# tests/reference/checkpoint_corrupt.py (make_checkpoint.py) in a temp dir.
#
#   BUILD=build-asan-ckpt tests/reference/test_checkpoint_corrupt.sh   (sanitizer build)
#   CKPT_WRAP="valgrind --leak-check=full --errors-for-leak-kinds=all --error-exitcode=99" \
#     tests/reference/test_checkpoint_corrupt.sh                        (under valgrind)
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/tests/reference/checkpoint_driver
WRAP=${CKPT_WRAP:-}
failed=0

if [ ! -x "$BIN" ]; then
  echo "not ok - $BIN is not built (make $BIN)"
  exit 1
fi
if ! "$PYTHON" -c 'import torch' 2>/dev/null; then
  echo "ok - # SKIP $PYTHON has no torch (install python3-torch)"
  exit 0
fi

work=$(mktemp -d /tmp/el-ckpt-corrupt.XXXXXX)
trap 'rm -rf "$work"' EXIT

if ! "$PYTHON" tests/reference/checkpoint_corrupt.py "$work/fx" >"$work/manifest.tsv" \
  2>"$work/gen.err"; then
  echo "not ok - fixture generation failed:"
  sed 's/^/#   /' "$work/gen.err"
  exit 1
fi

# Runs the driver; its TAP lines go to stdout; a crash or a sanitizer/valgrind
# report (non-zero exit without a "not ok") still counts as a failure.
run() {
  local label=$1; shift
  local out rc
  out=$($WRAP "$BIN" "$@" 2>"$work/stderr")
  rc=$?
  printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | grep -v '^# [0-9]* passed'
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    if ! printf '%s\n' "$out" | grep -q '^not ok'; then
      echo "not ok - $label: driver exited with status $rc"
    fi
    grep -E 'ERROR|runtime error|definitely|indirectly|Invalid|uninitialised' "$work/stderr" \
      | head -5 | sed 's/^/#   /'
  fi
}

n=0
while IFS=$'\t' read -r kind label dir rest; do
  n=$((n + 1))
  IFS=$'\t' read -r -a args <<<"$rest"
  case $kind in
    roundtrip) run "$label" --roundtrip "$label" "$dir" "${args[0]}" "$(mktemp -d "$work/rt.XXXX")" ;;
    expect) run "$label" --expect "$label" "$dir" "${args[@]}" ;;
    *) echo "not ok - manifest line $n: unknown kind $kind"; failed=$((failed + 1)) ;;
  esac
done <"$work/manifest.tsv"

# A full disk while saving: a private tmpfs of 160 KiB in a user+mount
# namespace holds one ~125 KiB checkpoint but not a second one beside it.
src=$work/fx/base
mnt=$work/mnt
mkdir -p "$mnt"
if unshare -rm true 2>/dev/null; then
  # shellcheck disable=SC2016
  unshare -rm bash -c '
    mount -t tmpfs -o size=160k tmpfs "$1" || exit 3
    shift
    mnt=$1 wrap=$2 bin=$3 src=$4
    $wrap "$bin" --save "save fits" "$src" "$mnt/ckpt" EL_OK || exit 1
    $wrap "$bin" --save "full disk, new dir" "$src" "$mnt/other" EL_ENOSPC model.safetensors \
      || exit 1
    $wrap "$bin" --save "full disk, replacing a dir" "$src" "$mnt/ckpt" EL_ENOSPC \
      model.safetensors || exit 1
  ' _ "$mnt" "$mnt" "$WRAP" "$BIN" "$src" >"$work/enospc.out" 2>"$work/enospc.err"
  rc=$?
  grep -E '^(ok|not ok|#)' "$work/enospc.out" | grep -v '^# [0-9]* passed'
  if [ $rc -eq 3 ]; then
    echo "ok - # SKIP cannot mount a tmpfs in a user namespace: ENOSPC case not run"
  elif [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    grep -q '^not ok' "$work/enospc.out" || echo "not ok - ENOSPC cases exited with status $rc"
    head -5 "$work/enospc.err" | sed 's/^/#   /'
  fi
else
  echo "ok - # SKIP unshare -rm not permitted: ENOSPC case not run"
fi

echo "# $n fixture cases${WRAP:+ under $WRAP}"
[ $failed -eq 0 ]
