#!/usr/bin/python3
"""Plain-PyTorch ELECTRA: the independent reference the C engine is checked against.

Written from the math in docs/MODEL.md §1 (post-LN BERT encoder, exact erf GELU,
LayerNorm eps from config.json, no pooler) with Hugging Face parameter names (section 7),
so `load_state_dict(strict=True)` proves every tensor of a checkpoint is used and none is
missing (except, as in HF, the position table of a "relative_key" model: kept, unused).
It shares no code with the engine or with make_checkpoint.py: the checkpoint
directory is read here by hand (config.json + model.safetensors).
position_embedding_type "relative_key" follows HF's ElectraSelfAttention formula, not the
engine's code: no absolute position embedding; per layer a distance_embedding D
[2P - 1, head dim], scores (q_l.k_r + q_l.D[l - r + P - 1]) / sqrt(head dim).

Run with /usr/bin/python3 (Debian python3-torch 1.13). Eval mode only (no dropout).

    import electra_ref as er
    model = er.load("/tmp/ckpt")                    # Electra module, eval mode, float32
    out = model(ids, types, mask)                   # ids/types/mask: LongTensor [B, S]
    out["hidden"]     [B, S, H]  final encoder states
    out["replaced"]   [B, S]     sigmoid(discriminator logit)    (ElectraForPreTraining)
    out["logits"]     [B, labels] classifier on [CLS]            (ElectraForSequenceClassification)
    out["start"], out["end"] [B, S]                              (ElectraForQuestionAnswering)
    out["token_logits"] [B, S, labels] classifier on every token (ElectraForTokenClassification)
    model.mlm_logits(out["hidden"][b, s])  [n, V]                (ElectraForMaskedLM)
"""
import json
import math
import os
import struct

import torch
import torch.nn as nn
import torch.nn.functional as F

ARCH_NAMES = ("ElectraForPreTraining", "ElectraForMaskedLM",
              "ElectraForSequenceClassification", "ElectraForQuestionAnswering",
              "ElectraForTokenClassification")

_ST_DTYPES = {"F32": (torch.float32, torch.int32), "F16": (torch.float16, torch.int16),
              "BF16": (torch.bfloat16, torch.int16), "I64": (torch.int64, torch.int64),
              "I32": (torch.int32, torch.int32)}


def read_safetensors(path):
    """{name: tensor} from a safetensors file; float tensors widened to float32."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        dt, raw_dt = _ST_DTYPES[e["dtype"]]
        a, b = e["data_offsets"]
        raw = bytearray(blob[base + a:base + b])
        t = torch.frombuffer(raw, dtype=raw_dt) if raw else torch.empty(0, dtype=raw_dt)
        t = t.view(dt).reshape(e["shape"]).clone()
        out[name] = t.float() if t.is_floating_point() else t
    return out


def _relative(c):
    """True for "relative_key"; the engine refuses "relative_key_query", so does this."""
    t = c.get("position_embedding_type", "absolute")
    if t not in ("absolute", "relative_key"):
        raise ValueError("unsupported position_embedding_type %r" % t)
    return t == "relative_key"


class _Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        E = c["embedding_size"]
        self.relative = _relative(c)  # the table stays (HF keeps it), unused
        self.word_embeddings = nn.Embedding(c["vocab_size"], E)
        self.position_embeddings = nn.Embedding(c["max_position_embeddings"], E)
        self.token_type_embeddings = nn.Embedding(c["type_vocab_size"], E)
        self.LayerNorm = nn.LayerNorm(E, eps=c["layer_norm_eps"])

    def forward(self, ids, types):
        x = self.word_embeddings(ids) + self.token_type_embeddings(types)
        if not self.relative:
            pos = torch.arange(ids.shape[1]).unsqueeze(0).expand_as(ids)
            x = x + self.position_embeddings(pos)
        return self.LayerNorm(x)


class _SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        H = c["hidden_size"]
        self.nh = c["num_attention_heads"]
        self.query = nn.Linear(H, H)
        self.key = nn.Linear(H, H)
        self.value = nn.Linear(H, H)
        self.max_pos = c["max_position_embeddings"]
        if _relative(c):
            self.distance_embedding = nn.Embedding(2 * self.max_pos - 1, H // self.nh)

    def forward(self, x, mask_add):
        B, S, H = x.shape
        dh = H // self.nh

        def split(t):
            return t.view(B, S, self.nh, dh).transpose(1, 2)  # [B, nh, S, dh]

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2)
        if hasattr(self, "distance_embedding"):
            # HF: positions restart at 0 in every row (right padding), distance l - r
            # shifted by max_pos - 1 into the table, one table for all heads.
            l = torch.arange(S).view(-1, 1)
            r = torch.arange(S).view(1, -1)
            pe = self.distance_embedding(l - r + self.max_pos - 1)  # [S, S, dh]
            scores = scores + torch.einsum("bhld,lrd->bhlr", q, pe)
        scores = scores / math.sqrt(dh) + mask_add
        p = torch.softmax(scores, dim=-1)
        return (p @ v).transpose(1, 2).reshape(B, S, H)


class _DenseLN(nn.Module):
    """dense then LayerNorm(dense(x) + residual): HF's *Output blocks."""

    def __init__(self, cin, cout, eps):
        super().__init__()
        self.dense = nn.Linear(cin, cout)
        self.LayerNorm = nn.LayerNorm(cout, eps=eps)

    def forward(self, x, residual):
        return self.LayerNorm(self.dense(x) + residual)


class _Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.add_module("self", _SelfAttention(c))  # HF name "attention.self"
        self.output = _DenseLN(c["hidden_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, x, mask_add):
        return self.output(getattr(self, "self")(x, mask_add), x)


class _Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["intermediate_size"])

    def forward(self, x):
        return F.gelu(self.dense(x))  # exact erf GELU (F.gelu default)


class _Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = _Attention(c)
        self.intermediate = _Intermediate(c)
        self.output = _DenseLN(c["intermediate_size"], c["hidden_size"], c["layer_norm_eps"])

    def forward(self, x, mask_add):
        a = self.attention(x, mask_add)
        return self.output(self.intermediate(a), a)


class _Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([_Layer(c) for _ in range(c["num_hidden_layers"])])

    def forward(self, x, mask_add):
        for layer in self.layer:
            x = layer(x, mask_add)
        return x


class _ElectraModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = _Embeddings(c)
        if c["embedding_size"] != c["hidden_size"]:
            self.embeddings_project = nn.Linear(c["embedding_size"], c["hidden_size"])
        self.encoder = _Encoder(c)

    def forward(self, ids, types, mask):
        x = self.embeddings(ids, types)
        if hasattr(self, "embeddings_project"):
            x = self.embeddings_project(x)
        # Additive key mask broadcast over heads and queries (HF uses finfo.min).
        mask_add = (1.0 - mask.float())[:, None, None, :] * torch.finfo(torch.float32).min
        return self.encoder(x, mask_add)


class _Pair(nn.Module):
    """Two dense layers with the given names (heads)."""

    def __init__(self, n1, shape1, n2, shape2):
        super().__init__()
        self.add_module(n1, nn.Linear(*shape1))
        self.add_module(n2, nn.Linear(*shape2))
        self.n1, self.n2 = n1, n2

    def forward(self, x):
        return getattr(self, self.n2)(F.gelu(getattr(self, self.n1)(x)))


class _GeneratorPredictions(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c["hidden_size"], c["embedding_size"])
        self.LayerNorm = nn.LayerNorm(c["embedding_size"], eps=c["layer_norm_eps"])

    def forward(self, h):
        return self.LayerNorm(F.gelu(self.dense(h)))  # HF hard-codes gelu here


class Electra(nn.Module):
    """One of the five HF task models, chosen by config["architectures"][0]."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.arch = c["architectures"][0]
        if self.arch not in ARCH_NAMES:
            raise ValueError("unsupported architecture %r" % self.arch)
        H, E, V = c["hidden_size"], c["embedding_size"], c["vocab_size"]
        self.electra = _ElectraModel(c)
        if self.arch == "ElectraForPreTraining":
            self.discriminator_predictions = _Pair("dense", (H, H), "dense_prediction", (H, 1))
        elif self.arch == "ElectraForMaskedLM":
            self.generator_predictions = _GeneratorPredictions(c)
            self.generator_lm_head = nn.Linear(E, V)
        elif self.arch == "ElectraForSequenceClassification":
            n = len(c.get("id2label") or {}) or c.get("num_labels", 2)
            self.classifier = _Pair("dense", (H, H), "out_proj", (H, n))
        elif self.arch == "ElectraForTokenClassification":
            n = len(c.get("id2label") or {}) or c.get("num_labels", 2)
            self.classifier = nn.Linear(H, n)  # dropout is identity in eval mode
        else:
            self.qa_outputs = nn.Linear(H, 2)

    def forward(self, ids, types=None, mask=None):
        if types is None:
            types = torch.zeros_like(ids)
        if mask is None:
            mask = torch.ones_like(ids)
        h = self.electra(ids, types, mask)
        out = {"hidden": h}
        if self.arch == "ElectraForPreTraining":
            out["replaced"] = torch.sigmoid(self.discriminator_predictions(h).squeeze(-1))
        elif self.arch == "ElectraForSequenceClassification":
            out["logits"] = self.classifier(h[:, 0])  # [CLS] token
        elif self.arch == "ElectraForTokenClassification":
            out["token_logits"] = self.classifier(h)
        elif self.arch == "ElectraForQuestionAnswering":
            se = self.qa_outputs(h)
            out["start"], out["end"] = se[..., 0], se[..., 1]
        return out

    def mlm_logits(self, h):
        """Vocabulary logits for hidden states h [n, H] (the chosen positions)."""
        return self.generator_lm_head(self.generator_predictions(h))


def load_config(ckpt_dir):
    with open(os.path.join(ckpt_dir, "config.json"), encoding="utf-8") as f:
        c = json.load(f)
    c.setdefault("embedding_size", c["hidden_size"])
    c.setdefault("layer_norm_eps", 1e-12)
    return c


def load(ckpt_dir):
    """Electra module in eval mode holding the checkpoint's weights (float32)."""
    c = load_config(ckpt_dir)
    st = read_safetensors(os.path.join(ckpt_dir, "model.safetensors"))
    st = {k: v for k, v in st.items() if v.is_floating_point()}  # drop position_ids buffers
    if "generator_lm_head.bias" in st and "generator_lm_head.weight" not in st:
        st["generator_lm_head.weight"] = st["electra.embeddings.word_embeddings.weight"]
    m = Electra(c)
    m.load_state_dict(st, strict=True)
    m.eval()
    return m
