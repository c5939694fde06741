#!/usr/bin/python3
"""PyTorch autograd reference for the trainer's math (tests/reference/test_train_reference.sh).

Reads what `test_train_math_grad --dump DIR` wrote (configs, tensor table, initial parameters,
batch, masking plan, generator samples, losses, every gradient, a 10-step AdamW run) and
recomputes all of it in float64 with a model written here from the math of docs/MODEL.md
(sections 1, 3, 4, 7; HF parameter names), independently of the C code: per-sequence
loops instead of packing, torch autograd instead of hand-written backward passes.
Configs with "relative_positions": 1 use HF's position_embedding_type "relative_key"
(ElectraSelfAttention): no absolute position embedding, and per layer a distance embedding
D [2P - 1, head dim] in the scores, (q_l.k_r + q_l.D[l - r + P - 1]) / sqrt(head dim).

Tolerances (C computes in float32; the "_bf16" cases' products in bf16, BF16_* below):
  losses                 |c - ref| <= 1e-5 |ref|
  every gradient element |c - ref| <= max(1e-4 |ref|, 1e-6 max(1, |ref|max of its tensor))
                         (the absolute floor follows the tensor's scale: an element that is
                         a float32 sum of terms of that size cancelling to near 0 carries
                         their rounding, e.g. 1.1e-6 on 0.0066 in a tensor whose largest
                         gradient is 1.35, seen on one CPU and not on another)
  AdamW run: per-step losses 1e-4 relative, grad norms 1e-4 relative,
             final parameters |c - ref| <= 2e-5 (peak lr 2e-3, so 1 % of one step)
Prints TAP lines; exits 1 on any failure.
"""
import json
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
failures = 0
# cases "<case>_bf16" (C's matrix products in bf16, fp32 sums): every operand
# carries bf16's relative rounding of 2^-9, so they are held to a share of each
# tensor's largest gradient rather than to each element. electra_rel_bf16
# stays within 0.6 % of it; ged_rel_bf16 (weights drawn at 0.3, so softmax is
# near saturation and amplifies rounding) reaches 5 %. A wrong layout or a
# lost term is off by the gradient's own size.
BF16_GRAD_TOL = 6e-2
BF16_LOSS_TOL = 1e-2
BF16_FLOOR = 1e-3


def report(ok, msg):
    global failures
    print(("ok - " if ok else "not ok - ") + msg)
    if not ok:
        failures += 1


def load(d, case, name, dtype):
    return np.fromfile(f"{d}/{case}.{name}", dtype=dtype)


class Params:
    """Leaf tensors by (model, HF name); shared and tied names resolve to one tensor."""

    def __init__(self, meta, flat):
        self.tensors = meta["tensors"]
        self.by_key = {}
        for t in self.tensors:
            a = flat[t["offset"]:t["offset"] + t["count"]].reshape(t["shape"])
            self.by_key[(t["model"], t["name"])] = torch.tensor(a.astype(np.float64), requires_grad=True)

    def __call__(self, model, name):
        if (model, name) in self.by_key:
            return self.by_key[(model, name)]
        if name == "generator_lm_head.weight":  # tied to the word embeddings
            return self(model, "electra.embeddings.word_embeddings.weight")
        if model == 1 and name.startswith("electra.") and (0, name) in self.by_key:
            return self.by_key[(0, name)]  # shared embeddings; with --tie-generator the whole encoder
        raise KeyError((model, name))

    def leaves(self):
        return [self.by_key[(t["model"], t["name"])] for t in self.tensors]

    def flat_grad(self):
        return np.concatenate([
            (p.grad if p.grad is not None else torch.zeros_like(p)).detach().numpy().ravel()
            for p in self.leaves()])

    def flat(self):
        return np.concatenate([p.detach().numpy().ravel() for p in self.leaves()])


def layer_norm(x, g, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * g + b


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def linear(P, m, name, x):
    return x @ P(m, name + ".weight").T + P(m, name + ".bias")


def attention_scores(P, m, cfg, p, q, k):
    """Scaled scores [nh, L, L] of one sequence; relative_key adds q_l . D[l - r + P - 1]."""
    s = q @ k.transpose(1, 2)
    if cfg.get("relative_positions"):
        L, maxp = q.shape[1], cfg["max_position_embeddings"]
        dist = torch.arange(L).view(-1, 1) - torch.arange(L).view(1, -1)
        pe = P(m, p + "attention.self.distance_embedding.weight")[dist + maxp - 1]  # [L, L, dh]
        s = s + torch.einsum("hld,lrd->hlr", q, pe)
    return s / math.sqrt(q.shape[-1])


def encoder(P, m, cfg, ids, types, seq_len):
    """Final hidden states [T, H]; each sequence on its own (no packing, no mask)."""
    E, H, nh = cfg["embedding_size"], cfg["hidden_size"], cfg["num_heads"]
    dh, eps = H // nh, cfg["layer_norm_eps"]
    absolute = not cfg.get("relative_positions")
    outs, t0 = [], 0
    for L in seq_len:
        i = torch.tensor(ids[t0:t0 + L], dtype=torch.long)
        ty = torch.tensor(types[t0:t0 + L], dtype=torch.long)
        x = (P(m, "electra.embeddings.word_embeddings.weight")[i]
             + P(m, "electra.embeddings.token_type_embeddings.weight")[ty])
        if absolute:  # relative_key: the table stays among the parameters, unused
            x = x + P(m, "electra.embeddings.position_embeddings.weight")[:L]
        x = layer_norm(x, P(m, "electra.embeddings.LayerNorm.weight"),
                       P(m, "electra.embeddings.LayerNorm.bias"), eps)
        if E != H:
            x = linear(P, m, "electra.embeddings_project", x)
        for l in range(cfg["num_layers"]):
            p = f"electra.encoder.layer.{l}."
            q, k, v = (linear(P, m, p + "attention.self." + n, x).view(L, nh, dh).transpose(0, 1)
                       for n in ("query", "key", "value"))
            probs = torch.softmax(attention_scores(P, m, cfg, p, q, k), dim=-1)
            ctx = (probs @ v).transpose(0, 1).reshape(L, H)
            a = layer_norm(linear(P, m, p + "attention.output.dense", ctx) + x,
                           P(m, p + "attention.output.LayerNorm.weight"),
                           P(m, p + "attention.output.LayerNorm.bias"), eps)
            f = linear(P, m, p + "output.dense", gelu(linear(P, m, p + "intermediate.dense", a)))
            x = layer_norm(f + a, P(m, p + "output.LayerNorm.weight"),
                           P(m, p + "output.LayerNorm.bias"), eps)
        outs.append(x)
        t0 += L
    return torch.cat(outs)


def disc_logits(P, m, h):
    return linear(P, m, "discriminator_predictions.dense_prediction",
                  gelu(linear(P, m, "discriminator_predictions.dense", h))).squeeze(-1)


def gen_logits(P, m, cfg, h, positions):
    g = gelu(linear(P, m, "generator_predictions.dense", h[torch.tensor(positions, dtype=torch.long)]))
    g = layer_norm(g, P(m, "generator_predictions.LayerNorm.weight"),
                   P(m, "generator_predictions.LayerNorm.bias"), cfg["layer_norm_eps"])
    return g @ P(m, "generator_lm_head.weight").T + P(m, "generator_lm_head.bias")


def case_loss(name, c, P, d, samples=None):
    cfgs, seq_len = c["configs"], c["seq_len"]
    ids = load(d, name, "ids", "<i4").tolist()
    types = load(d, name, "types", "<i4").tolist()
    pos = load(d, name, "plan_pos", "<i4").tolist()
    firsts = np.cumsum([0] + seq_len[:-1]).tolist()
    if name.startswith("electra"):
        use_mask = load(d, name, "plan_mask", "<i4").tolist()
        gen_ids = list(ids)
        for p, um in zip(pos, use_mask):
            if um:
                gen_ids[p] = c["mask_id"]
        hg = encoder(P, 1, cfgs[1], gen_ids, types, seq_len)
        mlm = F.cross_entropy(gen_logits(P, 1, cfgs[1], hg, pos), torch.tensor([ids[p] for p in pos]))
        corrupted = list(ids)
        for p, s in zip(pos, samples):
            corrupted[p] = int(s)
        labels = torch.tensor([float(a != b) for a, b in zip(corrupted, ids)])
        hd = encoder(P, 0, cfgs[0], corrupted, types, seq_len)
        disc = F.binary_cross_entropy_with_logits(disc_logits(P, 0, hd), labels)
        return 1.0 * mlm + 50.0 * disc, mlm, disc
    cfg = cfgs[0]
    if name == "mlm":
        mids = load(d, name, "mlm_ids", "<i4").tolist()
        tg = torch.tensor(load(d, name, "mlm_targets", "<i4").astype(np.int64))
        h = encoder(P, 0, cfg, mids, types, seq_len)
        return F.cross_entropy(gen_logits(P, 0, cfg, h, pos), tg), None, None
    h = encoder(P, 0, cfg, ids, types, seq_len)
    if name == "cls":
        x = h[torch.tensor(firsts, dtype=torch.long)]
        logits = linear(P, 0, "classifier.out_proj", gelu(linear(P, 0, "classifier.dense", x)))
        return F.cross_entropy(logits, torch.tensor(load(d, name, "cls_labels", "<i4").astype(np.int64))), None, None
    if name == "qa":
        logits = linear(P, 0, "qa_outputs", h)
        st, en = load(d, name, "qa_start", "<i4"), load(d, name, "qa_end", "<i4")
        total = 0.0
        for s, (t0, L) in enumerate(zip(firsts, seq_len)):
            seg = logits[t0:t0 + L]
            total = total + (F.cross_entropy(seg[:, 0][None], torch.tensor([int(st[s]) - t0]))
                             + F.cross_entropy(seg[:, 1][None], torch.tensor([int(en[s]) - t0]))) / 2
        return total / len(seq_len), None, None
    if name == "reg":
        x = h[torch.tensor(firsts, dtype=torch.long)]
        out = linear(P, 0, "classifier.out_proj", gelu(linear(P, 0, "classifier.dense", x)))[:, 0]
        y = torch.tensor(load(d, name, "reg_targets", "<f4").astype(np.float64))
        return ((out - y) ** 2).mean(), None, None
    if name in ("ged", "ged_rel", "ged_rel_bf16"):
        y = torch.tensor(load(d, name, "ged_labels", "<f4").astype(np.float64))
        w = torch.tensor(load(d, name, "ged_w", "<f4").astype(np.float64))
        bce = F.binary_cross_entropy_with_logits(disc_logits(P, 0, h), y, reduction="none")
        return (bce * w).sum() / w.sum(), None, None
    raise ValueError(name)


def close_rel(a, b, rtol):
    return abs(a - b) <= rtol * abs(b)


def check_grads(name, c, P, cgrad):
    ref = P.flat_grad()
    worst_t, worst_r, n_bad = "", 0.0, 0
    # bf16: a floor for gradients that are 0 in exact arithmetic (the keys'
    # biases, which softmax cancels), where what C carries is the rounding of
    # the bf16 terms that should cancel (1e-4 of the largest gradient seen)
    floor16 = BF16_FLOOR * float(np.abs(ref).max())
    for t in c["tensors"]:
        o, n = t["offset"], t["count"]
        diff = np.abs(cgrad[o:o + n].astype(np.float64) - ref[o:o + n])
        scale = float(np.abs(ref[o:o + n]).max())
        if c.get("bf16"):  # bf16 products: 8 significant bits per operand
            tol = np.full(n, max(BF16_GRAD_TOL * scale, floor16))
        else:
            tol = np.maximum(1e-4 * np.abs(ref[o:o + n]), 1e-6 * max(1.0, scale))
        r = float((diff / tol).max())
        n_bad += int((diff > tol).sum())
        if r > worst_r:
            worst_t, worst_r = t["name"] + (" (generator)" if t["model"] == 1 else ""), r
    what = (f"{BF16_GRAD_TOL:g} x the tensor's largest |grad|" if c.get("bf16")
            else "max(1e-4 rel, 1e-6 x tensor scale abs)")
    report(n_bad == 0, f"{name}: all {len(ref)} gradient elements of {len(c['tensors'])} tensors "
           f"within {what} of autograd (worst {worst_r:.3g} of tolerance at {worst_t}; "
           f"{n_bad} outside)")
    dist = [t for t in c["tensors"] if "distance_embedding" in t["name"]]
    if dist:  # relative_key: its own line, so the distance tables' gradients are seen checked
        worst_d, max_ref, max_abs = 0.0, 0.0, 0.0
        for t in dist:
            o, n = t["offset"], t["count"]
            diff = np.abs(cgrad[o:o + n].astype(np.float64) - ref[o:o + n])
            if c.get("bf16"):
                tol = max(BF16_GRAD_TOL * float(np.abs(ref[o:o + n]).max()), floor16)
            else:
                tol = np.maximum(1e-4 * np.abs(ref[o:o + n]), 1e-6)
            worst_d = max(worst_d, float((diff / tol).max()))
            max_ref = max(max_ref, float(np.abs(ref[o:o + n]).max()))
            max_abs = max(max_abs, float(diff.max()))
        report(worst_d <= 1.0 and max_ref > 0,
               f"{name}: distance embeddings of {len(dist)} layers: gradients within tolerance "
               f"(worst {worst_d:.3g} of it, max abs diff {max_abs:.3g}; largest |grad| {max_ref:.3g})")
    nonzero = sum(1 for p in P.leaves() if p.grad is not None and float(p.grad.abs().max()) > 0)
    # relative_key models keep the unused position table: it alone gets no gradient
    unused = sum(1 for t in c["tensors"] if t["name"].endswith("position_embeddings.weight")
                 and c["configs"][t["model"]].get("relative_positions"))
    expect = len(c["tensors"]) - unused
    report(nonzero == expect or not name.startswith("electra"),
           f"{name}: {nonzero} of {len(c['tensors'])} tensors have a non-zero reference gradient "
           f"(expected {expect}: {unused} unused position tables)")


def adamw_replay(name, c, P, d):
    o = c["adamw"]
    samples = load(d, name, "step_samples", "<i4").reshape(o["steps"], -1)
    leaves, tensors = P.leaves(), c["tensors"]
    m = [torch.zeros_like(p) for p in leaves]
    v = [torch.zeros_like(p) for p in leaves]
    losses, norms = [], []
    for s in range(o["steps"]):
        for p in leaves:
            p.grad = None
        loss, _, _ = case_loss(name, c, P, d, samples[s])
        loss.backward()
        losses.append(float(loss))
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in leaves]
        norm = math.sqrt(sum(float((g * g).sum()) for g in grads))
        norms.append(norm)
        clip = o["clip"] / norm if norm > o["clip"] else 1.0
        T, W = o["steps"], o["warmup"]
        lr = o["peak_lr"] * (1 - min(s, T) / T) * (min(1.0, s / W) if W > 0 else 1.0)
        with torch.no_grad():
            for i, (p, g, t) in enumerate(zip(leaves, grads, tensors)):
                g = g * clip
                m[i] = o["beta1"] * m[i] + (1 - o["beta1"]) * g
                v[i] = o["beta2"] * v[i] + (1 - o["beta2"]) * g * g
                u = m[i] / (torch.sqrt(v[i]) + o["eps"])
                if not t["no_decay"]:
                    u = u + o["weight_decay"] * p
                p -= lr * u
    cl = c["step_losses"]
    wl = max(abs(a - b) / abs(b) for a, b in zip(cl, losses))
    report(wl <= 1e-4, f"{name}: 10 AdamW steps, every step's loss within 1e-4 relative "
           f"(worst {wl:.2g}; C {cl[0]:.6f} -> {cl[-1]:.6f}, ref {losses[0]:.6f} -> {losses[-1]:.6f})")
    wn = max(abs(a - b) / abs(b) for a, b in zip(c["step_norms"], norms))
    clipped = sum(1 for n in norms if n > o["clip"])
    report(wn <= 1e-4, f"{name}: gradient norms within 1e-4 relative (worst {wn:.2g}; clipping active "
           f"in {clipped} of {len(norms)} steps)")
    cf = load(d, name, "params_final", "<f4").astype(np.float64)
    rf = P.flat()
    p0 = load(d, name, "params0", "<f4").astype(np.float64)
    diff = np.abs(cf - rf)
    moved = float(np.abs(rf - p0).max())
    report(float(diff.max()) <= 2e-5, f"{name}: final parameters within 2e-5 of the reference "
           f"(max diff {diff.max():.3g}, mean {diff.mean():.3g}; largest move {moved:.3g})")


def main():
    d = sys.argv[1]
    meta = json.load(open(f"{d}/meta.json"))
    for name, c in meta.items():
        flat = load(d, name, "params0", "<f4")
        P = Params(c, flat)
        samples = load(d, name, "samples", "<i4") if name.startswith("electra") else None
        loss, mlm, disc = case_loss(name, c, P, d, samples)
        loss.backward()
        lt = BF16_LOSS_TOL if c.get("bf16") else 1e-5
        report(close_rel(c["loss"], float(loss), lt),
               f"{name}: loss {c['loss']:.8f} vs autograd {float(loss):.8f} ({lt:g} relative)")
        if mlm is not None:
            report(close_rel(c["mlm_loss"], float(mlm), lt) and close_rel(c["disc_loss"], float(disc), lt),
                   f"{name}: MLM loss {c['mlm_loss']:.8f} vs {float(mlm):.8f}, discriminator loss "
                   f"{c['disc_loss']:.8f} vs {float(disc):.8f} ({lt:g} relative)")
        check_grads(name, c, P, load(d, name, "grads", "<f4"))
        if "adamw" in c:
            P = Params(c, flat)
            adamw_replay(name, c, P, d)
    print(f"# {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
