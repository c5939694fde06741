#!/usr/bin/env bash
# scripts/fce_convention_split.py on hand-written files in the two FCE layouts:
# the label differences counted on sentences tokenised alike (a Rei error in a
# span holding a BEA error, one alone, one BEA error Rei lacks), the last
# tenth of Rei's file held out and halved, and every sentence with a held-out
# sentence's letters left out of both train files, however tokenised.
# Runtime: < 1 s.
set -u
cd "$(dirname "$0")/../.."
PY=${PYTHON:-/usr/bin/python3}
T=$(mktemp -d /tmp/el_fce_split.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/tap.sh

# 20 sentences "The word<letter> is here ."; Rei's (tab) and BEA's (space, CRLF)
# labels differ in sentences 0-2; Rei's sentence 3 repeats held-out sentence 19,
# and BEA writes it split ("wordt" as "word t"), so both must drop it.
"$PY" - "$T" <<'PY'
import sys
t = sys.argv[1]
def sent(k):
    return ["The", "word" + chr(97 + k), "is", "here", "."]
rei, bea = [], []
for k in range(20):
    w = sent(19 if k == 3 else k)
    r, b = ["c"] * 5, ["c"] * 5
    if k == 0: r[1] = r[2] = b[1] = "i"   # "is" continues a span BEA marks at its start
    if k == 1: r[0] = "i"                 # Rei's alone
    if k == 2: b[3] = "i"                 # BEA's alone
    rei.append(list(zip(w, r)))
    bw = ["The", "word", "t", "is", "here", "."] if k == 3 else w
    bea.append(list(zip(bw, b + (["c"] if k == 3 else []))))
with open(t + "/rei.tsv", "w") as f:
    f.write("".join("".join(f"{a}\t{l}\n" for a, l in s) + "\n" for s in rei))
with open(t + "/bea.txt", "w", newline="") as f:
    f.write("".join("".join(f"{a} {l}\r\n" for a, l in s) + "\r\n" for s in bea))
PY
out=$("$PY" scripts/fce_convention_split.py "$T/rei.tsv" "$T/bea.txt" "$T/out" 2>&1)
echo "$out" | sed 's/^/# /'
check "labels compared on the 20 Rei sentences BEA tokenises alike (its 3rd, a copy of the 20th, too): 1 both, 2 Rei's only (1 in a span), 1 BEA's only" \
  grep -q '^20 sentences tokenised alike: error tokens in both 1, Rei.s only 2 (1 of them in a run of Rei errors holding a BEA error), BEA.s only 1$' <<<"$out"
check "the last tenth held out and halved; its letters dropped from both train files" \
  grep -q '^held out 2 sentences (A 1, B 1); train: Rei 17 of 18, BEA 17 of 20$' <<<"$out"
check "reiA is sentence 18, reiB sentence 19, in Rei's layout" \
  bash -c 'grep -qx "words	c" "$0/out/reiA.tsv" && grep -qx "wordt	c" "$0/out/reiB.tsv"' "$T"
check "BEA's train keeps its layout and loses the held-out sentences (word s, word t)" \
  bash -c 'grep -qx "wordb c" "$0/out/bea_train.txt" && ! grep -q "^words \|^t c" "$0/out/bea_train.txt"' "$T"
"$PY" scripts/fce_convention_split.py "$T/rei.tsv" >/dev/null 2>&1
check "a missing argument gives the usage (exit non-zero)" test $? -ne 0
echo "# $fails failed"
[ $fails -eq 0 ]
