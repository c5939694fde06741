#!/usr/bin/python3
"""PyTorch float64 reference for the ELECTRA step at the `tiny` shape
(tests/reference/test_train_scale_reference.sh).

Reads what `test_train_scale_grad --dump DIR` wrote -- the tensor table, parameters (after 5
AdamW steps), the packed batch, masking plan and Gumbel samples, both losses and every gradient,
dropout off -- and recomputes them with a padded-batch model written here from the math of
docs/MODEL.md (shared embeddings and embedding LayerNorm, generator projection, tied LM head),
using autograd instead of hand-written backward passes.

Tolerances (C computes in float32 over ~2,750 tokens):
  losses                 |c - ref| <= 1e-5 |ref|
  every gradient element |c - ref| <= max(1e-4 |ref|, 1e-6)
Prints TAP lines; exits 1 on any failure.
"""
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
d = sys.argv[1]
failures = 0


def report(ok, msg):
    global failures
    print(("ok - " if ok else "not ok - ") + msg)
    failures += 0 if ok else 1


meta = {}
tensors = []
for line in open(f"{d}/meta.txt"):
    f = line.split()
    if f[0] == "tensor":
        tensors.append((f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6])))
    else:
        meta[f[0]] = float(f[1])
flat = np.fromfile(f"{d}/params.bin", np.float32)
grads = np.fromfile(f"{d}/grads.bin", np.float32)
P = {}
for name, model, off, cnt, a, b in tensors:
    shape = (a, b) if b else (a,)
    P[(model, name)] = torch.tensor(flat[off:off + cnt].reshape(shape).astype(np.float64), requires_grad=True)


def w(model, name):
    if model == 1 and name.startswith("electra.embeddings."):
        return P[(0, name)]  # shared with the discriminator
    return P[(model, name)]


ids_packed = np.fromfile(f"{d}/ids.bin", np.int32)
types_packed = np.fromfile(f"{d}/types.bin", np.int32)
seq_len = np.fromfile(f"{d}/seq_len.bin", np.int32)
pos = np.fromfile(f"{d}/pos.bin", np.int32)
use_mask = np.fromfile(f"{d}/use_mask.bin", np.int32).astype(bool)
samples = np.fromfile(f"{d}/samples.bin", np.int32)
mask_id = int(meta["mask_id"])
S, L = len(seq_len), int(seq_len.max())
starts = np.concatenate([[0], np.cumsum(seq_len)[:-1]])
row = np.repeat(np.arange(S), seq_len)
col = np.arange(len(ids_packed)) - starts[row]


def padded(packed):
    out = np.zeros((S, L), np.int64)
    out[row, col] = packed
    return torch.tensor(out)


valid = torch.zeros(S, L, dtype=torch.bool)
valid[row, col] = True
add_mask = ((~valid).double() * -1e9)[:, None, None, :]


def ln(x, model, pre):
    return F.layer_norm(x, (x.shape[-1],), w(model, pre + ".weight"), w(model, pre + ".bias"), 1e-12)


def lin(x, model, pre):
    return x @ w(model, pre + ".weight").T + w(model, pre + ".bias")


def encoder(ids, types, model, heads):
    e = "electra.embeddings."
    x = w(model, e + "word_embeddings.weight")[ids] + w(model, e + "position_embeddings.weight")[:L][None] \
        + w(model, e + "token_type_embeddings.weight")[types]
    x = ln(x, model, e + "LayerNorm")
    if (model, "electra.embeddings_project.weight") in P:
        x = lin(x, model, "electra.embeddings_project")
    h = x.shape[-1]
    dh = h // heads
    l = 0
    while (model, f"electra.encoder.layer.{l}.attention.self.query.weight") in P:
        p = f"electra.encoder.layer.{l}."
        q, k, v = (lin(x, model, p + "attention.self." + n).view(S, L, heads, dh).transpose(1, 2)
                   for n in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh) + add_mask, -1)
        c = (a @ v).transpose(1, 2).reshape(S, L, h)
        x = ln(lin(c, model, p + "attention.output.dense") + x, model, p + "attention.output.LayerNorm")
        f = lin(F.gelu(lin(x, model, p + "intermediate.dense")), model, p + "output.dense")
        x = ln(f + x, model, p + "output.LayerNorm")
        l += 1
    return x


types = padded(types_packed)
orig = padded(ids_packed)
prow, pcol = torch.tensor(row[pos]), torch.tensor(col[pos])
gen_in = orig.clone()
gen_in[prow[torch.tensor(use_mask)], pcol[torch.tensor(use_mask)]] = mask_id
gh = encoder(gen_in, types, 1, 1)[prow, pcol]
gh = ln(F.gelu(lin(gh, 1, "generator_predictions.dense")), 1, "generator_predictions.LayerNorm")
logits = gh @ w(1, "electra.embeddings.word_embeddings.weight").T + w(1, "generator_lm_head.bias")
targets = orig[prow, pcol]
mlm = F.cross_entropy(logits, targets)
disc_in = orig.clone()
disc_in[prow, pcol] = torch.tensor(samples, dtype=torch.int64)
labels = (disc_in != orig).double()
dh = encoder(disc_in, types, 0, 2)
dl = lin(F.gelu(lin(dh, 0, "discriminator_predictions.dense")), 0, "discriminator_predictions.dense_prediction")[..., 0]
disc = F.binary_cross_entropy_with_logits(dl[valid], labels[valid])
loss = mlm + 50.0 * disc
loss.backward()

print(f"# {S} sequences, {len(ids_packed)} tokens, {len(pos)} masked, {int(labels.sum())} replaced")
for name, c, r in (("MLM loss", meta["mlm"], mlm.item()), ("discriminator loss", meta["disc"], disc.item()),
                   ("total loss", meta["loss"], loss.item())):
    report(abs(c - r) <= 1e-5 * abs(r), f"{name}: C {c:.9g} vs PyTorch {r:.9g}")
worst, worst_name, n_el = 0.0, "", 0
for name, model, off, cnt, a, b in tensors:
    ref = P[(model, name)].grad
    ref = np.zeros(cnt) if ref is None else ref.numpy().ravel()
    c = grads[off:off + cnt].astype(np.float64)
    ratio = np.abs(c - ref) / np.maximum(1e-4 * np.abs(ref), 1e-6)
    n_el += cnt
    if ratio.max() > worst:
        worst, worst_name = float(ratio.max()), f"model {model} {name}"
    if ratio.max() > 1.0:
        i = int(ratio.argmax())
        report(False, f"gradient of model {model} {name}: element {i} C {c[i]:.6g} vs PyTorch {ref[i]:.6g}")
report(worst <= 1.0, f"{len(tensors)} gradient tensors, {n_el} elements within max(1e-4 |ref|, 1e-6) "
                     f"(worst {worst:.3g} of the tolerance, {worst_name})")
sys.exit(1 if failures else 0)
