#!/usr/bin/env bash
# scripts/ged_judge_probe.py: the corrections it builds from the learner-error
# families, its F0.5 per half and the margin chosen on one half and scored on
# the other (on hand-made gains), the model's P by word class (--classes), and,
# on a random checkpoint, that its PyTorch reading of the model gives the
# P that `electra-train eval --out` wrote (so its gains are the model's).
# Skips when /usr/bin/python3 has no torch. Runtime: a few seconds.
set -u
cd "$(dirname "$0")/../.."
PY=${PYTHON:-/usr/bin/python3}
BUILD=${BUILD:-build}
. tests/tap.sh
if ! "$PY" -c 'import torch' 2>/dev/null; then
  skip "ged_judge_probe: $PY has no torch (python3-torch)"
  exit 0
fi
T=$(mktemp -d /tmp/el_ged_probe.XXXXXX)
trap 'rm -rf "$T"' EXIT

out=$("$PY" - <<'PYEOF' 2>&1
import math, sys
sys.path.insert(0, "scripts")
import ged_judge_probe as g
known = {"eats", "ate", "schools", "eaten"}
c = g.corrections(["She", "eat", "at", "the", "school"], known)
cs = {(i, " ".join(w)) for i, w in c}
want = {(1, "She eats at the school"), (1, "She the eat at the school"),
        (2, "She eat on the school"), (3, "She eat at school"),
        (3, "She eat at a school"), (4, "She eat at the schools")}
miss = want - cs
print("missing", sorted(miss)) if miss else print("corrections ok")
# no insertion right after a determiner, no form the word lists do not know
bad = {s for s in cs if s[1] in ("She eat at the the school", "She eat at the a school", "She eat at the schooled")}
print("unexpected", sorted(bad)) if bad else print("no unwanted corrections")
# sentence 0 (even half): gold error at word 1, flagged; sentence 1 (odd):
# error at word 0 not flagged, a correct word 1 not flagged
sents = [[("a", False, False, 0.1), ("b", True, True, 0.9)],
         [("c", True, False, 0.2), ("d", False, False, 0.3)]]
tp, fp, fn, atp, afp = g.counts(sents, {(1, 0): 0.5, (1, 1): 0.2}, 0.3, None)
print("counts", tp, fp, fn, atp, afp)
tp, fp, fn, atp, afp = g.counts(sents, {(1, 0): 0.5, (1, 1): 0.2}, 0.1, 1)
print("odd", tp, fp, fn, atp, afp)
print("f05 %.4f" % g.f05(1, 1, 1)[0])
PYEOF
)
check "corrections from the families (verb form, preposition, article dropped/swapped/inserted, noun number)" \
  grep -q "^corrections ok" <<<"$out"
check "no insertion after a determiner, no unknown form" grep -q "^no unwanted corrections" <<<"$out"
check "counts: the gain above the margin adds one error" grep -q "^counts 2 0 0 1 0" <<<"$out"
check "counts on the odd half only, a lower margin adding a false alarm" grep -q "^odd 1 1 0 1 1" <<<"$out"
check "F0.5 of P = R = 0.5" grep -q "^f05 0.5000" <<<"$out"
[ "$fails" = 0 ] || printf '%s\n' "$out" | sed 's/^/# /'

# --classes: the words not flagged, by class, at each threshold
printf 'The\tc\tc\t0.1\nin\ti\tc\t0.45\nLondon\tc\tc\t0.55\ngo\ti\ti\t0.9\n,\tc\tc\t0.25\nhouse\ti\tc\t0.35\n\n' >"$T/pred"
cls=$("$PY" scripts/ged_judge_probe.py none "$T/pred" --classes 2>&1)
check "--classes at 0.3: the preposition (error), the capitalised word, the other word (error)" \
  grep -q '^| 0.3 | 0 / 0 | 1 / 1 | 0 / 0 | 0 / 1 | 1 / 1 |$' <<<"$cls"
check "--classes at 0.5: the capitalised word only" \
  grep -q '^| 0.5 | 0 / 0 | 0 / 0 | 0 / 0 | 0 / 1 | 0 / 0 |$' <<<"$cls"

# the probe reads the model as the engine does
if [ -x "$BUILD/bin/electra-train" ]; then
  "$PY" tests/reference/make_checkpoint.py --arch pretraining --out "$T/m" --hidden 32 --layers 2 \
    --heads 2 --intermediate 64 --embedding 32 --seed 3 >/dev/null
  printf 'She\tc\ngo\ti\nto\tc\nthe\tc\nschool\tc\n.\tc\n\nI\tc\nhave\tc\ntwo\tc\nbrother\ti\n.\tc\n\n' >"$T/dev.txt"
  "$BUILD/bin/electra-train" eval --task ged --data "$T/dev.txt" --model "$T/m" --out "$T/p.tsv" >/dev/null 2>"$T/err" ||
    cat "$T/err"
  run=$("$PY" scripts/ged_judge_probe.py "$T/m" "$T/p.tsv" --threads 1 2>&1)
  diff=$(sed -n 's/^largest |P - PRED.s P| //p' <<<"$run")
  check "the probe's P equals eval's (largest difference $diff)" \
    "$PY" -c "import sys; sys.exit(not float('$diff') < 1e-3)"
  check "the cost and the table are printed" grep -q "^cost: [1-9][0-9]* candidate sentences" <<<"$run"
  check "a margin is chosen on each half" [ "$(grep -c "^margin chosen on the" <<<"$run")" = 2 ]
else
  nok "$BUILD/bin/electra-train not built"
fi
exit $((fails > 0))
