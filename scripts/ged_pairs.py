#!/usr/bin/env python3
"""Agreement minimal pairs: does a GED model see the subject, or only the word?

  electra-train eval --task ged --data scripts/ged_minimal_pairs.txt --model M --out P.tsv
  python3 scripts/ged_pairs.py P.tsv

scripts/ged_minimal_pairs.txt holds pairs of sentences: one with an agreement
error (its word labelled i) and then the same sentence corrected. For each pair
this prints P(error) of the wrong form and of the right form at the same place;
a model that reads context scores the wrong form higher in every pair. A model
that only knows word identities scores "eats" alike after "He" and "They"."""
import sys


def sentences(path):
    cur = []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if cur:
                yield cur
            cur = []
            continue
        word, gold, _pred, prob = line.split("\t")
        cur.append((word, gold == "i", float(prob)))
    if cur:
        yield cur


def main():
    s = list(sentences(sys.argv[1]))
    if len(s) % 2:
        sys.exit("ged_pairs: an odd number of sentences: not the pairs file's predictions")
    wins, diffs = 0, []
    for bad, good in zip(s[0::2], s[1::2]):
        k = next(i for i, (_, err, _) in enumerate(bad) if err)
        pb, pg = bad[k][2], good[k][2]
        wins += pb > pg
        diffs.append(pb - pg)
        print(f"{' '.join(w for w, _, _ in bad):40s} {bad[k][0]:>8s} {pb:.3f}   {good[k][0]:>8s} {pg:.3f}")
    print(f"wrong form scored higher in {wins} of {len(diffs)} pairs; mean difference {sum(diffs) / len(diffs):+.3f}")


if __name__ == "__main__":
    main()
