#!/usr/bin/env python3
"""Recall of a GED model per error type: which learners' errors it flags.

  scripts/ged_types.py PRED M2 [THRESHOLD]

PRED is `electra-train eval --task ged --data DEV --out PRED` (token, gold,
predicted, P(error) per line, a blank line between sentences); M2 is the same
sentences' gold edits in M2 format with ERRANT types (for FCE dev:
fce.dev.gold.bea19.m2). An edit counts as found when any token it marks scores
at least THRESHOLD (default: the threshold column of PRED, i.e. the flags
`eval` counted); the marks follow the FCE token convention: the tokens an edit
replaces or deletes, or for a missing word the token after the gap. Types are
ERRANT's without the M:/R:/U: operation (R:VERB:SVA and M:VERB:SVA are both
VERB:SVA). Edits of annotators other than the first are ignored.
"""
import collections
import sys


def read_pred(path):
    sents, cur, flags = [], [], []
    for line in open(path, encoding="utf-8"):
        p = line.split()
        if not p:
            if cur:
                sents.append(cur)
            cur = []
            continue
        if len(p) < 4:
            sys.exit(f"{path}: expected token, gold, predicted, P(error) per line: {line!r}")
        cur.append(float(p[3]))
        flags.append((float(p[3]), p[2] == "i"))
    if cur:
        sents.append(cur)
    return sents, flags


def eval_threshold(flags):
    """The lowest score `eval` flagged: its threshold, as far as PRED shows it."""
    flagged = [s for s, f in flags if f]
    return min(flagged) if flagged else 0.5


def edits(block):
    lines = block.split("\n")
    n_tokens = len(lines[0][2:].split())
    for a in lines[1:]:
        f = a[2:].split("|||")
        if len(f) < 6 or f[1] == "noop" or f[5].strip() != "0":
            continue
        start, end = map(int, f[0].split())
        marks = list(range(start, end)) if end > start else [start] if start < n_tokens else []
        if marks:
            kind = f[1].split(":", 1)[1] if ":" in f[1] else f[1]
            yield kind, marks, n_tokens


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sents, flags = read_pred(sys.argv[1])
    threshold = float(sys.argv[3]) if len(sys.argv) == 4 else eval_threshold(flags)
    blocks = open(sys.argv[2], encoding="utf-8").read().strip().split("\n\n")
    if len(blocks) != len(sents):
        sys.exit(f"{sys.argv[2]} has {len(blocks)} sentences, {sys.argv[1]} {len(sents)}")
    total, found = collections.Counter(), collections.Counter()
    for i, (block, scores) in enumerate(zip(blocks, sents)):
        for kind, marks, n_tokens in edits(block):
            if n_tokens != len(scores):
                sys.exit(f"sentence {i + 1}: {n_tokens} tokens in the M2 file, {len(scores)} in PRED")
            hit = any(scores[t] >= threshold for t in marks)
            for key in (kind, "all"):
                total[key] += 1
                found[key] += hit
    print(f"threshold {threshold:.4f}")
    print("| error type | edits | found | recall |")
    print("|---|---|---|---|")
    for kind, n in total.most_common():
        print(f"| {kind} | {n} | {found[kind]} | {found[kind] / n:.2f} |")


if __name__ == "__main__":
    main()
