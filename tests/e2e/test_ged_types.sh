#!/usr/bin/env bash
# scripts/ged_types.py on hand-written files: recall per ERRANT type with the
# FCE mark convention (a replaced or deleted token is marked, a missing word
# marks the token after the gap), the operation prefix dropped, only the first
# annotator counted, the threshold from the flags `eval` made or given, and
# mismatched files refused with the defect named. Runtime: < 1 s.
set -u
cd "$(dirname "$0")/../.."
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d /tmp/el_ged_types.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh

# Sentence 1: "She go to school ." -- SVA on "go" (flagged 0.9), a missing
# determiner before "school" (mark: "school", 0.2, not flagged), a second
# annotator's edit (ignored). Sentence 2: "I recieved it" -- spelling (0.8),
# a word to delete at "it" (0.6: flagged), an edit at the end of the sentence
# (a missing full stop: no token after the gap, no mark).
printf 'She\tc\tc\t0.1\ngo\ti\ti\t0.9\nto\tc\tc\t0.1\nschool\ti\tc\t0.2\n.\tc\tc\t0.0\n\nI\tc\tc\t0.0\nrecieved\ti\ti\t0.8\nit\ti\ti\t0.6\n' >"$T/pred"
cat >"$T/m2" <<'M2'
S She go to school .
A 1 2|||R:VERB:SVA|||goes|||REQUIRED|||-NONE-|||0
A 3 3|||M:DET|||the|||REQUIRED|||-NONE-|||0
A 0 1|||R:PRON|||He|||REQUIRED|||-NONE-|||1

S I recieved it
A 1 2|||R:SPELL|||received|||REQUIRED|||-NONE-|||0
A 2 3|||U:PRON||||||REQUIRED|||-NONE-|||0
A 3 3|||M:PUNCT|||.|||REQUIRED|||-NONE-|||0
M2
out=$("$PY" scripts/ged_types.py "$T/pred" "$T/m2" 2>&1)
echo "$out" | sed 's/^/# /'
check "threshold taken from eval's flags (lowest flagged score 0.6)" grep -qx 'threshold 0.6000' <<<"$out"
check "4 counted edits (second annotator and unmarkable edit left out), 3 found" grep -qx '| all | 4 | 3 | 0.75 |' <<<"$out"
check "R:VERB:SVA counted as VERB:SVA and found" grep -qx '| VERB:SVA | 1 | 1 | 1.00 |' <<<"$out"
check "M:DET marks the token after the gap (0.2: missed)" grep -qx '| DET | 1 | 0 | 0.00 |' <<<"$out"
check "U:PRON (0.6) found" grep -qx '| PRON | 1 | 1 | 1.00 |' <<<"$out"
check "no PUNCT row (nothing to mark)" bash -c '! grep -q PUNCT <<<"$0"' "$out"
out=$("$PY" scripts/ged_types.py "$T/pred" "$T/m2" 0.1 2>&1)
check "a given threshold 0.1 finds the determiner too" grep -qx '| all | 4 | 4 | 1.00 |' <<<"$out"
head -n 5 "$T/pred" >"$T/short"
out=$("$PY" scripts/ged_types.py "$T/short" "$T/m2" 2>&1); rc=$?
check "one sentence against two refused, naming both counts (rc $rc: $out)" \
  bash -c '[ "$0" -ne 0 ] && grep -q "has 2 sentences" <<<"$1" && grep -q " 1$" <<<"$1"' "$rc" "$out"
sed 's/^S I recieved it$/S I recieved it today/' "$T/m2" >"$T/m2b"
out=$("$PY" scripts/ged_types.py "$T/pred" "$T/m2b" 2>&1); rc=$?
check "a sentence of other length refused, naming it (rc $rc: $out)" \
  bash -c '[ "$0" -ne 0 ] && grep -q "sentence 2: 4 tokens in the M2 file, 3 in PRED" <<<"$1"' "$rc" "$out"
echo "# $fails failed"
[ $fails -eq 0 ]
