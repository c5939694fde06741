#!/usr/bin/python3
"""ELECTRA pretraining written independently in PyTorch, for the learning-parity bench
(tests/bench/bench_learning_pytorch.sh).

Reads the trainer's binary token cache (train/data/data_cache.h) and the vocabulary, and trains the
`tiny` preset's generator/discriminator pair with the recipe of docs/MODEL.md: dynamic masking (15 %,
85 % [MASK] / 15 % kept, positions without replacement), Gumbel-max samples, sigmoid CE over
every non-pad token, MLM + 50 x disc, shared embeddings, AdamW without bias correction
(eps 1e-6, decay 0.01 except LayerNorm/bias), clip 1.0, linear warmup x linear decay, dropout
0.1. Batches are padded here (attention mask) where the C trainer packs them.

Prints one line per LOG steps: generator loss and accuracy, discriminator loss, the
discriminator loss of always predicting the batch's replaced fraction (base-rate entropy),
and the AUC of P(replaced) over the content tokens of those training batches (each batch
scored before it is learnt from).

usage: learning_pytorch.py CACHE VOCAB STEPS LR WARMUP [LOG]
"""
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from token_cache import TokenCache, auc

cache, vocab_path = sys.argv[1], sys.argv[2]
steps, lr_peak, warmup = int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
log_every = int(sys.argv[6]) if len(sys.argv) > 6 else 25
torch.manual_seed(0)
rng = np.random.default_rng(0)

# ---- data: the C token cache ----
tc = TokenCache(cache)
seq_len, vocab_size, toks, index = tc.seq_len, tc.vocab_size, tc.toks, tc.index
n_ex = len(index)
vocab = {w.rstrip("\n"): i for i, w in enumerate(open(vocab_path, encoding="utf-8"))}
PAD, CLS, SEP, MASK = (vocab[t] for t in ("[PAD]", "[CLS]", "[SEP]", "[MASK]"))

# ---- the tiny preset and its generator (0.25: hidden 32, 1 head, FFN 128) ----
V, B, L = vocab_size, 32, seq_len
E, H, NL, NH, FF = 128, 128, 4, 2, 512
GH, GNH, GFF = 32, 1, 128
P = {}


def param(name, *shape, init="normal"):
    t = torch.randn(*shape) * 0.02 if init == "normal" else (torch.ones(*shape) if init == "one" else torch.zeros(*shape))
    P[name] = torch.nn.Parameter(t)


def dense(name, n_in, n_out):
    param(name + ".w", n_out, n_in)
    param(name + ".b", n_out, init="zero")


def norm(name, n):
    param(name + ".g", n, init="one")
    param(name + ".b", n, init="zero")


param("word", V, E)
param("pos", 512, E)
param("type", 2, E)
norm("emb_ln", E)
for pre, h, ff in (("d", H, FF), ("g", GH, GFF)):
    for l in range(NL):
        for n in ("q", "k", "v", "o"):
            dense(f"{pre}{l}.{n}", h, h)
        norm(f"{pre}{l}.ln1", h)
        dense(f"{pre}{l}.ffn_in", h, ff)
        dense(f"{pre}{l}.ffn_out", ff, h)
        norm(f"{pre}{l}.ln2", h)
dense("g_proj", E, GH)
dense("disc_dense", H, H)
dense("disc_pred", H, 1)
dense("gen_dense", GH, E)
norm("gen_ln", E)
param("lm_bias", V, init="zero")
NO_DECAY = {k for k in P if k.endswith(".b") or k.endswith(".g") or k == "lm_bias"}


def ln(x, n):
    return F.layer_norm(x, (x.shape[-1],), P[n + ".g"], P[n + ".b"], 1e-12)


def lin(x, n):
    return x @ P[n + ".w"].T + P[n + ".b"]


def drop(x):
    return F.dropout(x, 0.1, True)


def encoder(x, pre, h, heads, add_mask):
    b, t, _ = x.shape
    dh = h // heads
    for l in range(NL):
        q, k, v = (lin(x, f"{pre}{l}.{n}").view(b, t, heads, dh).transpose(1, 2) for n in "qkv")
        a = drop(torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + add_mask, -1))
        c = (a @ v).transpose(1, 2).reshape(b, t, h)
        x = ln(drop(lin(c, f"{pre}{l}.o")) + x, f"{pre}{l}.ln1")
        x = ln(drop(lin(F.gelu(lin(x, f"{pre}{l}.ffn_in")), f"{pre}{l}.ffn_out")) + x, f"{pre}{l}.ln2")
    return x


def embed(ids, types):
    x = P["word"][ids] + P["pos"][: ids.shape[1]][None] + P["type"][types]
    return drop(ln(x, "emb_ln"))


def batch():
    ex = index[rng.integers(0, n_ex, size=B)]
    ids = np.full((B, L), PAD, np.int64)
    types = np.zeros((B, L), np.int64)
    valid = np.zeros((B, L), bool)
    for i, e in enumerate(ex):
        n, s = int(e["len"]), int(e["start"])
        ids[i, :n] = toks[s:s + n]
        types[i, int(e["b"]):n] = 1
        valid[i, :n] = True
    return ids, types, valid


def mask(ids, valid):
    cand = valid & (ids != CLS) & (ids != SEP) & (ids != MASK) & (ids != PAD)
    sel = np.zeros_like(cand)
    max_pred = int((0.15 + 0.005) * L)
    for i in range(B):
        c = np.nonzero(cand[i])[0]
        n = max(1, min(max_pred, int(np.rint(np.float32(valid[i].sum()) * np.float32(0.15)))))
        if len(c):
            sel[i, rng.choice(c, size=min(n, len(c)), replace=False)] = True
    return sel, sel & (rng.random(sel.shape) < 0.85)


def entropy(p):
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log(p) + (1 - p) * math.log(1 - p))


names = list(P)
m1 = {k: torch.zeros_like(P[k]) for k in names}
m2 = {k: torch.zeros_like(P[k]) for k in names}
print(f"pytorch {torch.__version__}, {torch.get_num_threads()} threads; cache {n_ex} examples, "
      f"vocab {V}; {steps} steps, lr {lr_peak:g}, warmup {warmup}", flush=True)
print("%6s %8s %8s %8s %9s %9s %7s %7s" % ("step", "gen_loss", "gen_acc", "disc", "base_rate",
                                           "disc-base", "AUC", "sec"), flush=True)
t0 = time.time()
acc = None
for step in range(steps):
    if acc is None:
        acc = {"g": 0.0, "ga": 0.0, "d": 0.0, "base": 0.0, "n": 0, "s": [], "y": []}
    ids, types, valid = batch()
    sel, use_mask = mask(ids, valid)
    ids_t, types_t = torch.tensor(ids), torch.tensor(types)
    valid_t, sel_t = torch.tensor(valid), torch.tensor(sel)
    add_mask = ((~valid_t).float() * -10000.0)[:, None, None, :]
    gen_in = ids_t.clone()
    gen_in[torch.tensor(use_mask)] = MASK
    gx = encoder(lin(embed(gen_in, types_t), "g_proj"), "g", GH, GNH, add_mask)
    logits = ln(F.gelu(lin(gx[sel_t], "gen_dense")), "gen_ln") @ P["word"].T + P["lm_bias"]
    target = ids_t[sel_t]
    mlm = F.cross_entropy(logits, target)
    with torch.no_grad():
        u = torch.rand_like(logits)
        sample = (logits - torch.log(-torch.log(u + 1e-9) + 1e-9)).argmax(-1)
    disc_in = ids_t.clone()
    disc_in[sel_t] = sample
    label = (disc_in != ids_t).float()
    dlogit = lin(F.gelu(lin(encoder(embed(disc_in, types_t), "d", H, NH, add_mask), "disc_dense")), "disc_pred")[..., 0]
    disc = F.binary_cross_entropy_with_logits(dlogit[valid_t], label[valid_t])
    loss = mlm + 50.0 * disc
    for p in P.values():
        p.grad = None
    loss.backward()
    norm_g = math.sqrt(sum(float((p.grad ** 2).sum()) for p in P.values()))
    clip = 1.0 / max(norm_g, 1.0)
    lr = lr_peak * min(1.0, step / warmup) * max(0.0, 1.0 - step / steps)
    with torch.no_grad():
        for k in names:
            p, g = P[k], P[k].grad * clip
            m1[k].mul_(0.9).add_(0.1 * g)
            m2[k].mul_(0.999).add_(0.001 * g * g)
            upd = m1[k] / (m2[k].sqrt() + 1e-6)
            if k not in NO_DECAY:
                upd = upd + 0.01 * p
            p.sub_(lr * upd)
    content = valid & (ids != CLS) & (ids != SEP)
    lab = label.numpy()
    acc["g"] += mlm.item()
    acc["ga"] += float((logits.argmax(-1) == target).float().mean())
    acc["d"] += disc.item()
    acc["base"] += entropy(float(lab[valid].mean()))
    acc["n"] += 1
    acc["s"].append(dlogit.detach().numpy()[content])
    acc["y"].append(lab[content])
    if (step + 1) % log_every == 0 or step + 1 == steps:
        n = acc["n"]
        a = auc(np.concatenate(acc["s"]), np.concatenate(acc["y"]))
        print("%6d %8.3f %8.4f %8.4f %9.4f %9.4f %7.4f %7.0f" % (
            step + 1, acc["g"] / n, acc["ga"] / n, acc["d"] / n, acc["base"] / n,
            (acc["d"] - acc["base"]) / n, a, time.time() - t0), flush=True)
        acc = None
