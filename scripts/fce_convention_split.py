#!/usr/bin/env python3
"""The two FCE label conventions side by side, and a split to measure a model on
Rei & Yannakoudakis's (the published test sets' convention) while it trains on
BEA-2019's.

  scripts/fce_convention_split.py REI_TRAIN.tsv BEA_TRAIN.txt OUTDIR

REI_TRAIN.tsv: fce-public.train.original.tsv (token<TAB>c|i); BEA_TRAIN.txt:
fce_train.txt (token<SPACE>c|i, CRLF). Prints how the labels of the sentences
tokenised alike in both files differ, then writes into OUTDIR:
  reiA.tsv, reiB.tsv   the last tenth of Rei's file (its essays are in order, so
                       whole essays), halved: A to calibrate on, B to score on
  rei_train.tsv        the rest of Rei's file
  bea_train.txt        BEA's train file
and from both train files every sentence whose letters are those of a held-out one
(the same essay sentence, however tokenised; short ones like "Dear Sir or Madam ,"
recur across essays and go too)."""
import os
import re
import sys


def read(path, sep):
    sents, cur = [], []
    with open(path, encoding="utf-8", newline="") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line:
                if cur:
                    sents.append(cur)
                cur = []
                continue
            tok, lab = line.rsplit(sep, 1)
            cur.append((tok, lab))
    if cur:
        sents.append(cur)
    return sents


def write(path, sents, sep):
    with open(path, "w", encoding="utf-8") as f:
        for s in sents:
            f.writelines(f"{t}{sep}{l}\n" for t, l in s)
            f.write("\n")


def letters(s):
    return re.sub(r"[^a-z]", "", "".join(t for t, _ in s).lower())


def compare(rei, bea):
    """Label differences on the sentences both files tokenise alike (once each in BEA)."""
    by_tokens = {}
    for s in bea:
        by_tokens.setdefault(tuple(t for t, _ in s), []).append(s)
    n = both = rei_only = bea_only = in_span = 0
    for s in rei:
        b = by_tokens.get(tuple(t for t, _ in s))
        if not b or len(b) != 1:
            continue
        n += 1
        r, e = [l == "i" for _, l in s], [l == "i" for _, l in b[0]]
        for k in range(len(s)):
            both += r[k] and e[k]
            bea_only += e[k] and not r[k]
            if r[k] and not e[k]:
                rei_only += 1
                lo, hi = k, k  # the run of Rei errors around k: does it hold a BEA error?
                while lo > 0 and r[lo - 1]:
                    lo -= 1
                while hi + 1 < len(s) and r[hi + 1]:
                    hi += 1
                in_span += any(e[lo:hi + 1])
    print(f"{n} sentences tokenised alike: error tokens in both {both}, Rei's only {rei_only} "
          f"({in_span} of them in a run of Rei errors holding a BEA error), BEA's only {bea_only}")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rei, bea = read(sys.argv[1], "\t"), read(sys.argv[2], " ")
    compare(rei, bea)
    cut = len(rei) * 9 // 10
    held = rei[cut:]
    held_letters = {letters(s) for s in held}
    rei_train = [s for s in rei[:cut] if letters(s) not in held_letters]
    bea_train = [s for s in bea if letters(s) not in held_letters]
    half = len(held) // 2
    out = sys.argv[3]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "reiA.tsv"), held[:half], "\t")
    write(os.path.join(out, "reiB.tsv"), held[half:], "\t")
    write(os.path.join(out, "rei_train.tsv"), rei_train, "\t")
    write(os.path.join(out, "bea_train.txt"), bea_train, " ")
    print(f"held out {len(held)} sentences (A {half}, B {len(held) - half}); train: Rei "
          f"{len(rei_train)} of {cut}, BEA {len(bea_train)} of {len(bea)}")


if __name__ == "__main__":
    main()
