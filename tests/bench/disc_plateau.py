"""How hard is replaced-token detection at the start of pretraining? (docs/RESULTS.md §1)

Three measurements on one token cache (electra-train's RUN/cache/tokens.bin), all on the same
task: 15% of the tokens of a sequence (ELECTRA's count rule) replaced by draws from the corpus
unigram distribution, so a token's identity says nothing and only its context does.

  1. A bigram detector: score = -(PMI(prev, tok) + PMI(tok, next)) with counts from the first N
     tokens of the cache, evaluated on examples after them. This is what local statistics alone
     give (AUC of replaced vs original tokens).
  2. A tiny ELECTRA discriminator (hidden 128, 4 layers, 2 heads, FFN 512, the tests' plain
     PyTorch model, no dropout, AdamW lr 1e-3, warmup 100, clip 1.0, batch 32) trained from
     scratch on exactly this task, AUC on held-out batches every 50 steps. It is independent of
     the C trainer: padded batches, PyTorch autograd, numpy sampling.
  3. --probe DIR...: the same AUC for discriminator checkpoints (e.g. RUN/discriminator).

    /usr/bin/python3 tests/bench/disc_plateau.py CACHE [--steps 300] [--lr 1e-3] [--seq-len N]
                                                 [--probe DIR ...]
  (docs/RESULTS.md's 32-token row: --steps 3000 --seq-len 32)
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
import electra_ref as R  # noqa: E402
from token_cache import TokenCache, auc  # noqa: E402

CLS, SEP, PAD, MASK = 101, 102, 0, 103  # BERT uncased ids; the cache header gives the vocab size


def corrupt(ids, rng, unigram):
    """ELECTRA's count rule, unigram replacements; returns (ids, labels, scored positions)."""
    ids = ids.copy()
    n = len(ids)
    cand = [j for j in range(n) if ids[j] not in (CLS, SEP)]
    k = max(1, min(19, int(np.rint(0.15 * n))))
    lab = np.zeros(n, np.int64)
    for q in rng.choice(cand, min(k, len(cand)), replace=False):
        s = rng.choice(len(unigram), p=unigram)
        if s != ids[q]:
            ids[q], lab[q] = s, 1
    return ids, lab, cand


def example(toks, idx, i):
    s = int(idx[i]["start"])
    return toks[s:s + int(idx[i]["len"])], int(idx[i]["b"])


def bigram_auc(toks, idx, V, unigram, n_count, n_eval=2000, seed=0):
    tr = toks[:n_count]
    cnt = np.bincount(tr, minlength=V).astype(np.float64)
    keys, counts = np.unique(tr[:-1] * V + tr[1:], return_counts=True)

    def pair(a, b):
        k = a * V + b
        i = min(np.searchsorted(keys, k), len(keys) - 1)
        return counts[i] if keys[i] == k else 0

    def pmi(a, b):
        return np.log((pair(a, b) + 0.1) / (cnt[a] * cnt[b] / n_count + 0.1))

    rng = np.random.default_rng(seed)
    later = np.where(idx["start"] > n_count)[0]
    S, L = [], []
    for i in rng.choice(later, min(n_eval, len(later)), replace=False):
        ids, lab, cand = corrupt(example(toks, idx, i)[0], rng, unigram)
        for j in cand:
            nxt = ids[j + 1] if j + 1 < len(ids) else SEP
            S.append(-(pmi(ids[j - 1], ids[j]) + pmi(ids[j], nxt)))
            L.append(lab[j])
    return auc(np.array(S), np.array(L))


def batch(toks, idx, sel, rng, unigram, crop=None):
    """crop: keep only the first `crop` tokens of each example (docs/RESULTS.md's 32-token runs)."""
    L = max(int(idx[i]["len"]) for i in sel)
    L = min(L, crop) if crop else L
    B = len(sel)
    ids = np.zeros((B, L), np.int64)
    tt = np.zeros((B, L), np.int64)
    mk = np.zeros((B, L), np.int64)
    lab = np.zeros((B, L), np.float32)
    score = np.zeros((B, L), bool)
    for b, i in enumerate(sel):
        x, bs = example(toks, idx, i)
        x, bs = x[:L], min(bs, L)
        x, y, cand = corrupt(x, rng, unigram)
        n = len(x)
        ids[b, :n], tt[b, bs:n], mk[b, :n], lab[b, :n] = x, 1, 1, y
        score[b, cand] = True
    return [torch.tensor(a) for a in (ids, tt, mk, lab)] + [score]


def eval_auc(model, val):
    S, L = [], []
    model.eval()
    with torch.no_grad():
        for ids, tt, mk, lab, score in val:
            p = model(ids, tt, mk)["replaced"].numpy()
            S.append(p[score])
            L.append(lab.numpy()[score])
    model.train()
    return auc(np.concatenate(S), np.concatenate(L).astype(np.int64))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cache")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--seq-len", type=int, default=0, help="crop examples to this many tokens")
    ap.add_argument("--probe", nargs="*", default=[])
    a = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    tc = TokenCache(a.cache)
    toks, idx, V = tc.toks, tc.index, tc.vocab_size
    cnt = np.bincount(toks, minlength=V).astype(np.float64)
    cnt[[CLS, SEP, PAD, MASK]] = 0
    unigram = cnt / cnt.sum()
    rng = np.random.default_rng(1)
    crop = a.seq_len or None
    val = [batch(toks, idx, rng.choice(len(idx), 32, replace=False), rng, unigram, crop) for _ in range(6)]
    print("task: 15%% of tokens replaced by unigram draws (%d examples, %d tokens, vocabulary %d)"
          % (len(idx), len(toks), V))
    for n in (100_000, 1_000_000):
        print("bigram-PMI detector, counts from the first %d tokens: AUC %.4f" % (n, bigram_auc(toks, idx, V, unigram, n)))
    for d in a.probe:
        print("checkpoint %s: AUC %.4f" % (d, eval_auc(R.load(d), val)))
    if a.steps <= 0:
        return
    c = dict(vocab_size=V, embedding_size=128, hidden_size=128, num_hidden_layers=4,
             num_attention_heads=2, intermediate_size=512, max_position_embeddings=512,
             type_vocab_size=2, layer_norm_eps=1e-12, architectures=["ElectraForPreTraining"])
    m = R.Electra(c)
    for name, p in m.named_parameters():
        if p.dim() == 2:
            torch.nn.init.normal_(p, 0, 0.02)
        elif "LayerNorm.weight" in name:
            torch.nn.init.ones_(p)
        else:
            torch.nn.init.zeros_(p)
    with torch.no_grad():  # start at the base rate, as electra-train's --bias-init prior does
        m.discriminator_predictions.dense_prediction.bias.fill_(np.log(0.15 / 0.85))
    opt = torch.optim.AdamW(m.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01)
    t0 = time.time()
    print("PyTorch tiny discriminator trained on this task (batch 32, lr %g%s):"
          % (a.lr, ", sequences cropped to %d tokens" % crop if crop else ""))
    for step in range(a.steps + 1):
        if step % 50 == 0:
            print("  step %4d  held-out AUC %.4f  (%.0f s)" % (step, eval_auc(m, val), time.time() - t0), flush=True)
        if step == a.steps:
            break
        ids, tt, mk, lab, _ = batch(toks, idx, rng.choice(len(idx), 32, replace=False), rng, unigram, crop)
        for g in opt.param_groups:
            g["lr"] = a.lr * min(1.0, (step + 1) / 100)
        h = m.electra(ids, tt, mk)
        logit = m.discriminator_predictions(h).squeeze(-1)
        loss = (F.binary_cross_entropy_with_logits(logit, lab, reduction="none") * mk).sum() / mk.sum()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()


if __name__ == "__main__":
    main()
