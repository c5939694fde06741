#!/usr/bin/env bash
# `electra-train vocab` / `pretrain` refuse bad input with a non-zero exit
# and one line naming the problem (vocab skips a line that is not UTF-8 and
# names it instead): missing or empty input, a directory, a
# vocabulary without the special tokens, an unknown option or bad value,
# --resume of nothing, a batch that does not split into --accumulate
# micro-batches, a run directory already in use, a vocabulary that is
# not the run's on --resume, a damaged resume state, and a full disk (a small
# tmpfs mounted for the test; SKIP when mounting is not permitted: a
# `ulimit -f` file-size limit raises SIGXFSZ/EFBIG, not ENOSPC, so it is not
# used as a stand-in). Runtime: ~15 s.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
PY=${PYTHON:-/usr/bin/python3}
BIN=$BUILD/bin/electra-train
T=$(mktemp -d /tmp/el_train_err.XXXXXX)
MNT=""
cleanup() { [ -n "$MNT" ] && umount "$MNT" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
. tests/tap.sh

[ -x "$BIN" ] || { bad "$BIN not built"; exit 1; }

# expect NAME WANT_RC PATTERN command...: exit status WANT_RC ("nz" = any
# non-zero), stderr matching PATTERN (case-insensitive) on its last line.
expect() {
  local name=$1 want=$2 pat=$3; shift 3
  "$@" >"$T/out" 2>"$T/err"
  local rc=$? last
  last=$(tail -1 "$T/err")
  if { [ "$want" = nz ] && [ $rc -ne 0 ]; } || [ "$rc" = "$want" ]; then
    if echo "$last" | grep -qiE -- "$pat"; then
      ok "$name (rc $rc): $last"
    else
      bad "$name: message '$last' does not match /$pat/"
    fi
  else
    bad "$name: exit status $rc, expected $want ($last)"
  fi
}

for i in $(seq 1 200); do echo "line $i has some words in it and more words ."; [ $((i % 5)) -eq 0 ] && echo; done >"$T/text.txt"
"$BIN" vocab --input "$T/text.txt" --vocab-size 60 --out "$T/vocab.txt" 2>/dev/null
: >"$T/empty.txt"
printf '\n  \n\n' >"$T/blank.txt"
grep -v '^\[MASK\]$' "$T/vocab.txt" >"$T/nomask.txt"

# ---- vocab ----
expect "vocab: missing input" 1 "missing.txt: No such file" \
  "$BIN" vocab --input "$T/missing.txt" --vocab-size 50 --out "$T/v.txt"
expect "vocab: empty input" 1 "empty.txt is empty" \
  "$BIN" vocab --input "$T/empty.txt" --vocab-size 50 --out "$T/v.txt"
expect "vocab: a directory" 1 "is a directory" \
  "$BIN" vocab --input "$T" --vocab-size 50 --out "$T/v.txt"
expect "vocab: --vocab-size required" 2 "required" "$BIN" vocab --input "$T/text.txt" --out "$T/v.txt"
expect "vocab: --vocab-size too small" 2 "between 6 and" \
  "$BIN" vocab --input "$T/text.txt" --vocab-size 3 --out "$T/v.txt"
expect "vocab: an output that cannot be made (a file where a directory should be)" 1 "cannot create" \
  "$BIN" vocab --input "$T/text.txt" --vocab-size 50 --out "$T/text.txt/v.txt"
# a line that is not UTF-8 (the tokenizer refuses it) is skipped and reported
# with file:line; the vocabulary is that of the other lines
{ head -2 "$T/text.txt"; printf 'bad \xff byte here\n'; tail -n +3 "$T/text.txt"; } >"$T/badutf8.txt"
"$BIN" vocab --input "$T/badutf8.txt" --vocab-size 60 --out "$T/vbad.txt" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && grep -q "skipped 1 line(s) that are not valid UTF-8; the first: $T/badutf8.txt:3: invalid UTF-8 at byte 4" "$T/err" &&
   cmp -s "$T/vbad.txt" "$T/vocab.txt"; then
  ok "vocab: an invalid UTF-8 line is skipped, counted and named (file:line, byte)"
else
  bad "vocab: invalid UTF-8 line (rc $rc): $(grep -i utf "$T/err")"
fi

# ---- pretrain: arguments ----
P=(--vocab "$T/vocab.txt" --max-steps 2 --batch-size 2 --seq-len 32 --threads 1)
expect "pretrain: missing input" 1 "missing.txt: No such file" \
  "$BIN" pretrain --input "$T/missing.txt" "${P[@]}" --out "$T/r1"
expect "pretrain: empty input" 1 "empty.txt is empty" \
  "$BIN" pretrain --input "$T/empty.txt" "${P[@]}" --out "$T/r2"
expect "pretrain: whitespace-only input" 1 "blank.txt is empty" \
  "$BIN" pretrain --input "$T/blank.txt" "${P[@]}" --out "$T/r3"
expect "pretrain: vocabulary without [MASK]" 1 "lacks the special token\(s\) \[MASK\]" \
  "$BIN" pretrain --input "$T/text.txt" --vocab "$T/nomask.txt" --max-steps 2 --out "$T/r4"
expect "pretrain: missing vocabulary" 1 "nope.txt" \
  "$BIN" pretrain --input "$T/text.txt" --vocab "$T/nope.txt" --out "$T/r5"
expect "pretrain: unknown option" 2 "unknown option '--bogus'" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/r6" --bogus 1
expect "pretrain: bad preset" 2 "one of tiny|mini|small|base|large" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/r6" --preset huge
expect "pretrain: bad duration" 2 "duration" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/r6" --time-limit 10q
expect "pretrain: --out required" 2 "--out RUN is required" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}"
expect "pretrain: --resume of nothing" 1 "nothing to resume" \
  "$BIN" pretrain --out "$T/r7" --resume
expect "pretrain: --batch-size not divisible by --accumulate" 1 \
  "--batch-size 2 .* must divide evenly into 1 rank\(s\) x --accumulate 3" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/r8" --accumulate 3
expect "pretrain: --accumulate 0" 2 "accumulate" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/r8" --accumulate 0

# ---- a real run, then misuse of it ----
"$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/run" 2>"$T/run.log" ||
  { bad "a small run failed"; sed 's/^/#   /' "$T/run.log" | tail -3; }
expect "pretrain: --out already holds a run" 1 "already holds a run.*--resume" \
  "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/run"
"$BIN" vocab --input "$T/text.txt" --vocab-size 55 --out "$T/other.txt" 2>/dev/null
expect "resume: another vocabulary" 1 "other.txt is not the one .* was trained with" \
  "$BIN" pretrain --out "$T/run" --resume --vocab "$T/other.txt" --max-steps 4
expect "resume: a changed setting" 1 "--batch-size 4 differs from the run's saved value 2" \
  "$BIN" pretrain --out "$T/run" --resume --batch-size 4 --max-steps 4
cp -r "$T/run" "$T/run-damaged"
"$PY" - "$T/run-damaged/state/state.bin" <<'EOF'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 1; open(p, "wb").write(b)
EOF
expect "resume: a damaged state" 1 "is damaged \(checksum" \
  "$BIN" pretrain --out "$T/run-damaged" --resume --max-steps 4

# ---- a full disk ----
MNT=$T/small
mkdir -p "$MNT"
if mount -t tmpfs -o size=1200k tmpfs "$MNT" 2>/dev/null; then
  # The checkpoints of the tiny model (~4 MB) cannot fit in 1.2 MB; the
  # token cache lives elsewhere so the failure is in the checkpoint save.
  expect "full disk while saving: one line, ENOSPC named" 1 "could not save the checkpoint: .*no space left on device" \
    "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$MNT/run" --cache "$T/cache.bin"
  if find "$MNT" -name '*.tmp-*' | grep -q .; then
    bad "full disk: temporary files left behind: $(find "$MNT" -name '*.tmp-*' | head -3)"
  else
    ok "full disk: no temporary files left behind"
  fi
  rm -rf "${MNT:?}"/*
  # The cache itself on the full disk (a 60 kB text -> ~50 kB cache; fill the disk first).
  dd if=/dev/zero of="$MNT/fill" bs=1k count=1190 2>/dev/null
  expect "full disk while tokenizing: ENOSPC named" 1 "no space left on device" \
    "$BIN" pretrain --input "$T/text.txt" "${P[@]}" --out "$T/run-nospace" --cache "$MNT/cache.bin"
  umount "$MNT" && MNT=""
else
  skip "cannot mount a tmpfs here (needs CAP_SYS_ADMIN): full-disk handling not tested"
fi

echo "# $fails failed"
[ $fails -eq 0 ]
