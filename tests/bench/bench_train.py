#!/usr/bin/python3
"""The same ELECTRA train step as tests/bench/bench_train.c, in PyTorch (eager, float32).

    bench_train.py PRESET [STEPS] [THREADS]

Batch 32 x 128 (full-length sequences, vocab 30522), 19 selected positions per sequence,
85 % [MASK]; generator (1/4 size, shared word/position/type embeddings and embedding
LayerNorm, tied output table) -> MLM loss at the selected positions -> samples from its softmax (inverse CDF; Gumbel-max with BENCH_PT_SAMPLER=gumbel) ->
discriminator -> sigmoid CE over all tokens; total = MLM + 50 disc; backward; clip to global
norm 1; AdamW (torch.optim.AdamW, weight decay 0.01 on non-LayerNorm/bias tensors). Dropout
0.1 on. Prints one JSON line like the C side.
"""
import os
import json
import math
import resource
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, NSEL, V = 32, 128, 19, 30522


class Layer(nn.Module):
    def __init__(self, H, nh, I):
        super().__init__()
        self.nh, self.dh = nh, H // nh
        self.query, self.key, self.value = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, H)
        self.attn_out, self.ln1 = nn.Linear(H, H), nn.LayerNorm(H, eps=1e-12)
        self.inter, self.out, self.ln2 = nn.Linear(H, I), nn.Linear(I, H), nn.LayerNorm(H, eps=1e-12)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = (m(x).view(b, s, self.nh, self.dh).transpose(1, 2) for m in (self.query, self.key, self.value))
        p = self.drop(torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.dh), dim=-1))
        ctx = (p @ v).transpose(1, 2).reshape(b, s, h)
        a = self.ln1(self.drop(self.attn_out(ctx)) + x)
        return self.ln2(self.drop(self.out(F.gelu(self.inter(a)))) + a)


class Encoder(nn.Module):
    def __init__(self, E, H, L, nh, I):
        super().__init__()
        self.project = nn.Linear(E, H) if E != H else None
        self.layers = nn.ModuleList(Layer(H, nh, I) for _ in range(L))

    def forward(self, x):
        if self.project is not None:
            x = self.project(x)
        for layer in self.layers:
            x = layer(x)
        return x


class Pair(nn.Module):
    def __init__(self, E, H, L, nh, I, gH, gnh, gI):
        super().__init__()
        self.word, self.pos, self.tok_type = nn.Embedding(V, E), nn.Embedding(512, E), nn.Embedding(2, E)
        self.emb_ln, self.emb_drop = nn.LayerNorm(E, eps=1e-12), nn.Dropout(0.1)
        self.gen, self.disc = Encoder(E, gH, L, gnh, gI), Encoder(E, H, L, nh, I)
        self.gen_dense, self.gen_ln = nn.Linear(gH, E), nn.LayerNorm(E, eps=1e-12)
        self.lm_bias = nn.Parameter(torch.zeros(V))
        self.disc_dense, self.disc_pred = nn.Linear(H, H), nn.Linear(H, 1)
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=0.02)

    def embed(self, ids, types):
        x = self.word(ids) + self.pos(torch.arange(ids.shape[1]))[None] + self.tok_type(types)
        return self.emb_drop(self.emb_ln(x))

    def step(self, ids, types, pos, use_mask, mask_id):
        flat = ids.view(-1)
        targets = flat[pos]
        gen_ids = flat.clone()
        gen_ids[pos[use_mask]] = mask_id
        hg = self.gen(self.embed(gen_ids.view(B, S), types)).reshape(B * S, -1)[pos]
        logits = self.gen_ln(F.gelu(self.gen_dense(hg))) @ self.word.weight.T + self.lm_bias
        mlm = F.cross_entropy(logits, targets)
        with torch.no_grad():
            # inverse-CDF sampling from softmax(logits), as the C trainer does
            # by default (EL_BENCH_SAMPLER=gumbel there and BENCH_PT_SAMPLER=gumbel
            # here time the Gumbel-max trick instead)
            if GUMBEL:
                u = torch.rand_like(logits)
                sample = (logits - torch.log(-torch.log(u + 1e-9) + 1e-9)).argmax(-1)
            else:
                sample = torch.multinomial(torch.softmax(logits, -1), 1).view(-1)
            corrupted = flat.clone()
            corrupted[pos] = sample
            labels = (corrupted != flat).float()
        hd = self.disc(self.embed(corrupted.view(B, S), types))
        dl = self.disc_pred(F.gelu(self.disc_dense(hd))).view(-1)
        disc = F.binary_cross_entropy_with_logits(dl, labels)
        return mlm + 50.0 * disc


GUMBEL = os.environ.get("BENCH_PT_SAMPLER") == "gumbel"


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "tiny"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    if name == "small":
        H, L, nh, I = 256, 12, 4, 1024
    else:
        H, L, nh, I = 128, 4, 2, 512
    gH = round(H * 0.25)
    model = Pair(128, H, L, nh, I, gH, max(1, gH // 64), round(I * 0.25))
    model.train()
    decay = [p for n, p in model.named_parameters() if not ("ln" in n or n.endswith("bias"))]
    no_decay = [p for n, p in model.named_parameters() if "ln" in n or n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}], lr=5e-4, eps=1e-6)
    ids = torch.randint(1000, V, (B, S))
    ids[:, 0], ids[:, -1] = 101, 102
    types = (torch.arange(S) >= S // 2).long().expand(B, S).contiguous()
    t0, loss0, loss = 0.0, 0.0, 0.0
    for it in range(steps + 2):
        if it == 2:
            t0 = time.perf_counter()
        pos = torch.cat([s * S + 1 + torch.randperm(S - 2)[:NSEL] for s in range(B)])
        use_mask = torch.rand(B * NSEL) < 0.85
        opt.zero_grad(set_to_none=True)
        total = model.step(ids, types, pos, use_mask, 103)
        total.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        loss = float(total)
        if it == 0:
            loss0 = loss
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    n_params = sum(p.numel() for p in model.parameters())
    print(json.dumps({"impl": "pytorch", "preset": name, "threads": threads, "steps": steps,
                      "ms_per_step": round(1e3 * dt / steps, 1), "tokens_per_s": round(B * S * steps / dt),
                      "peak_rss_mb": round(rss, 1), "params": n_params, "torch": torch.__version__,
                      "loss_first": round(loss0, 4), "loss_last": round(loss, 4)}))


if __name__ == "__main__":
    main()
