#!/usr/bin/python3
"""Does a GED model judge corrections better than it scores words? A probe.

  scripts/ged_judge_probe.py MODEL PRED [--generator | --classes] [--max-sentences N]

PRED is `electra-train eval --task ged --data DEV --model MODEL --out PRED`
(word, gold, flagged, P per line; a blank line between sentences): the words
`/score` flags, with the dictionary when the model has one. For every word the
probe builds corrections from the inverse learner-error families (articles
swapped, dropped or inserted before the word, prepositions swapped, be/have/do
and modal forms, this/these, much/many, and -s/-es/-ed/-ing forms that
Debian's word lists know), and asks whether the model prefers one:

- discriminator (default): each corrected sentence through the model; the
  word's gain is the largest drop of the sentence's summed P(replaced) over
  its pieces (an inserted word's own P counts);
- --generator: MODEL/generator (ElectraForMaskedLM) with the word masked; the
  gain is the best alternative's log-probability minus the word's (single-
  piece words only).

- --classes: no model run; the model's own P (PRED's P column) at a few
  thresholds on the words PRED does not flag, by word class (punctuation,
  preposition, determiner, capitalised, other): where a per-class threshold
  could add flags.

A word not flagged in PRED whose gain exceeds a margin is added to the flags.
Printed per margin: the flags added (errors among them), and the F0.5 of
PRED's flags with them on each half of the sentences (odd, even) and on the
whole; then the margin chosen on one half, scored on the other. The cost is
printed too: candidate sentences and their tokens against the text's own.

The model runs in plain PyTorch (tests/reference/electra_ref.py, so
/usr/bin/python3 with Debian's python3-torch); its WordPiece split is the
greedy longest match on vocab.txt after lower-casing and splitting off
punctuation (an uncased model's, checked against PRED's P column: the largest
difference is printed). Slow: the discriminator pass runs every candidate
sentence (about 80 times the text's tokens).
"""
import argparse
import math
import os
import sys
import unicodedata

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "reference"))
import electra_ref as er  # noqa: E402

ART = ["the", "a", "an"]
DET = set(ART + ["this", "that", "these", "those", "some", "any"])
PREP = ["in", "on", "at", "to", "for", "of", "with", "about", "from", "by", "into"]
GROUPS = [["is", "are", "was", "were", "be", "been", "am"], ["have", "has", "had"],
          ["do", "does", "did"], ["can", "could"], ["will", "would"], ["this", "these"],
          ["that", "those"], ["much", "many"]]
WORD_LISTS = ["/usr/share/dict/british-english", "/usr/share/dict/american-english"]


def read_pred(path):
    """[[(word, gold error, flagged, model P)]] per sentence."""
    sents, cur = [], []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            if cur:
                sents.append(cur)
            cur = []
            continue
        x = line.split("\t")
        p = float(x[4]) if len(x) > 4 else float(x[3])
        cur.append((x[0], x[1] == "i", x[2] == "i", p))
    if cur:
        sents.append(cur)
    return sents


class WordPiece:
    def __init__(self, vocab_path):
        self.vocab = {w.rstrip("\n"): i for i, w in enumerate(open(vocab_path, encoding="utf-8"))}
        self.cache = {}

    @staticmethod
    def basic(word):
        w = unicodedata.normalize("NFD", word.lower())
        w = "".join(c for c in w if unicodedata.category(c) != "Mn")
        out, cur = [], ""
        for c in w:
            if unicodedata.category(c).startswith("P") or (c.isascii() and not c.isalnum()):
                if cur:
                    out.append(cur)
                cur = ""
                out.append(c)
            else:
                cur += c
        if cur:
            out.append(cur)
        return out

    def pieces(self, word):
        if word in self.cache:
            return self.cache[word]
        ids = []
        for t in self.basic(word):
            s, sub = 0, []
            while s < len(t):
                e, found = len(t), None
                while e > s:
                    cand = t[s:e] if s == 0 else "##" + t[s:e]
                    if cand in self.vocab:
                        found = self.vocab[cand]
                        break
                    e -= 1
                if found is None:
                    sub = [self.vocab["[UNK]"]]
                    break
                sub.append(found)
                s = e
            ids += sub
        self.cache[word] = ids
        return ids

    def encode(self, words):
        ids, spans = [self.vocab["[CLS]"]], []
        for w in words:
            p = self.pieces(w)
            spans.append((len(ids), len(ids) + len(p)))
            ids += p
        ids.append(self.vocab["[SEP]"])
        return ids, spans


def forms(w, known):
    if not w.isalpha() or len(w) < 3:
        return set()
    c = [w + "s", w + "es", w + "ed", w + "d", w + "ing"]
    if w.endswith("s"):
        c.append(w[:-1])
    if w.endswith("es"):
        c.append(w[:-2])
    if w.endswith("ed"):
        c += [w[:-2], w[:-1]]
    if w.endswith("ing"):
        c += [w[:-3], w[:-3] + "e"]
    if w.endswith("ies"):
        c.append(w[:-3] + "y")
    if w.endswith("y"):
        c += [w[:-1] + "ies", w[:-1] + "ied"]
    return {x for x in c if x != w and x in known}


def alternatives(low, known):
    """Replacements of a lower-case word from the families above."""
    alts = set()
    if low in ART:
        alts |= set(ART)
    if low in PREP:
        alts |= set(PREP)
    for g in GROUPS:
        if low in g:
            alts |= set(g)
    if low not in DET and low not in PREP:
        alts |= forms(low, known)
    alts.discard(low)
    return alts


def corrections(words, known):
    """(word index, corrected sentence) for every candidate edit."""
    out, low = [], [w.lower() for w in words]
    for i, w in enumerate(low):
        if w in ART:
            out.append((i, words[:i] + words[i + 1:]))
        elif w.isalpha() and w not in DET and w not in PREP and (i == 0 or low[i - 1] not in DET):
            out += [(i, words[:i] + [a] + words[i:]) for a in ("the", "a")]
        out += [(i, words[:i] + [a] + words[i + 1:]) for a in sorted(alternatives(w, known))]
    return out


def run_batches(model, seqs, bs, fn):
    """fn(model, ids, mask, rows) per batch of seqs sorted by length."""
    order = sorted(range(len(seqs)), key=lambda k: len(seqs[k]))
    with torch.no_grad():
        for b in range(0, len(order), bs):
            rows = order[b:b + bs]
            n = max(len(seqs[k]) for k in rows)
            ids = torch.zeros(len(rows), n, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for r, k in enumerate(rows):
                ids[r, :len(seqs[k])] = torch.tensor(seqs[k])
                mask[r, :len(seqs[k])] = 1
            fn(model, ids, mask, rows)


def replaced_probs(model, seqs):
    out = [None] * len(seqs)

    def fn(m, ids, mask, rows):
        p = m(ids, torch.zeros_like(ids), mask)["replaced"]
        for r, k in enumerate(rows):
            out[k] = p[r, :len(seqs[k])].tolist()
    run_batches(model, seqs, 256, fn)
    return out


def discriminator_gains(model_dir, sents, wp, known):
    model = er.load(model_dir)
    base = [wp.encode([w for w, *_ in s]) for s in sents]
    probs = replaced_probs(model, [b[0] for b in base])
    diff = max((abs(max(probs[i][a:b]) - s[j][3]) for i, s in enumerate(sents)
                for j, (a, b) in enumerate(base[i][1]) if b > a), default=0.0)
    print("largest |P - PRED's P| %.2g" % diff)
    where, seqs = [], []
    for i, s in enumerate(sents):
        for j, words in corrections([w for w, *_ in s], known):
            where.append((i, j))
            seqs.append(wp.encode(words)[0])
    print("cost: %d candidate sentences, %d tokens (the text: %d sentences, %d tokens)"
          % (len(seqs), sum(map(len, seqs)), len(sents), sum(len(b[0]) for b in base)), flush=True)
    cand = replaced_probs(model, seqs)
    gains = {}
    for (i, j), p in zip(where, cand):
        g = sum(probs[i][1:-1]) - sum(p[1:-1])
        gains[i, j] = max(gains.get((i, j), -math.inf), g)
    return gains


def generator_gains(model_dir, sents, wp, known):
    gen = er.load(os.path.join(model_dir, "generator"))
    mask_id = wp.vocab["[MASK]"]
    jobs = []
    for i, s in enumerate(sents):
        ids, spans = wp.encode([w for w, *_ in s])
        for j, (w, *_r) in enumerate(s):
            a, b = spans[j]
            alt = [wp.pieces(x)[0] for x in alternatives(w.lower(), known) if len(wp.pieces(x)) == 1]
            if b - a == 1 and alt:
                m = list(ids)
                m[a] = mask_id
                jobs.append((i, j, m, a, ids[a], alt))
    print("cost: %d masked sentences" % len(jobs), flush=True)
    gains = {}

    def fn(m, ids, mask, rows):
        h = m(ids, torch.zeros_like(ids), mask)["hidden"]
        pos = torch.tensor([jobs[k][3] for k in rows])
        lp = torch.log_softmax(m.mlm_logits(h[torch.arange(len(rows)), pos]), -1)
        for r, k in enumerate(rows):
            i, j, _, _, orig, alt = jobs[k]
            gains[i, j] = max(lp[r, x].item() for x in alt) - lp[r, orig].item()
    run_batches(gen, [j[2] for j in jobs], 512, fn)
    return gains


def f05(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return (1.25 * p * r / (0.25 * p + r) if p + r else 0.0), p, r


def counts(sents, gains, margin, half):
    """tp, fp, fn of PRED's flags plus the gains above margin; added tp, fp."""
    tp = fp = fn = atp = afp = 0
    for i, s in enumerate(sents):
        if half is not None and i % 2 != half:
            continue
        for j, (_, gold, flagged, _) in enumerate(s):
            add = not flagged and gains.get((i, j), -math.inf) > margin
            f = flagged or add
            tp += f and gold
            fp += f and not gold
            fn += gold and not f
            atp += add and gold
            afp += add and not gold
    return tp, fp, fn, atp, afp


def report(sents, gains, margins):
    print("| margin | added (errors) | F0.5 odd half | F0.5 even half | F0.5 all (P / R) |")
    print("|---|---|---|---|---|")
    base = [f05(*counts(sents, {}, 0, h)[:3]) for h in (1, 0, None)]
    print("| PRED alone | - | %.4f | %.4f | %.4f (%.3f / %.3f) |" % (base[0][0], base[1][0], *base[2]))
    best = {0: (base[1][0], math.inf), 1: (base[0][0], math.inf)}
    for m in margins:
        c = [counts(sents, gains, m, h) for h in (1, 0, None)]
        f = [f05(*x[:3]) for x in c]
        print("| %g | %d (%d) | %.4f | %.4f | %.4f (%.3f / %.3f) |"
              % (m, c[2][3] + c[2][4], c[2][3], f[0][0], f[1][0], *f[2]))
        for h, k in ((1, 0), (0, 1)):
            if f[k][0] > best[h][0]:
                best[h] = (f[k][0], m)
    for h, name in ((1, "odd"), (0, "even")):
        m = best[h][1]
        other = f05(*counts(sents, gains, m, 1 - h)[:3])[0]
        print("margin chosen on the %s half: %s; F0.5 on the other half %.4f" %
              (name, "none (adding nothing)" if m == math.inf else "%g" % m, other))


def word_class(w):
    low = w.lower()
    if not any(c.isalpha() for c in w):
        return "punctuation"
    if low in PREP:
        return "preposition"
    if low in DET or low in ("my", "your", "his", "her", "its", "our", "their"):
        return "determiner"
    return "capitalised" if w[0].isupper() else "other"


def classes(sents):
    names = ["punctuation", "preposition", "determiner", "capitalised", "other"]
    print("| model P >= | " + " | ".join(names) + " |  (errors / words PRED does not flag)")
    print("|---" * (len(names) + 1) + "|")
    for t in (0.2, 0.3, 0.4, 0.5, 0.6):
        n = {k: [0, 0] for k in names}
        for s in sents:
            for w, gold, flagged, p in s:
                if not flagged and p >= t:
                    n[word_class(w)][0] += gold
                    n[word_class(w)][1] += 1
        print("| %.1f | " % t + " | ".join("%d / %d" % tuple(n[k]) for k in names) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("pred")
    ap.add_argument("--generator", action="store_true", help="judge with MODEL/generator")
    ap.add_argument("--classes", action="store_true", help="the model's own P by word class")
    ap.add_argument("--max-sentences", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    sents = read_pred(a.pred)
    if a.max_sentences:
        sents = sents[:a.max_sentences]
    if a.classes:
        classes(sents)
        return
    known = set()
    for path in WORD_LISTS:
        if os.path.exists(path):
            known |= {w.strip() for w in open(path, encoding="utf-8") if w.strip().isalpha()}
    wp = WordPiece(os.path.join(a.model, "vocab.txt"))
    if a.generator:
        gains = generator_gains(a.model, sents, wp, known)
        margins = [0, 0.5, 1, 1.5, 2, 3, 4]
    else:
        gains = discriminator_gains(a.model, sents, wp, known)
        margins = [0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0, 1.5]
    report(sents, gains, margins)


if __name__ == "__main__":
    main()
