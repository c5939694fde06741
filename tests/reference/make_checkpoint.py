#!/usr/bin/python3
"""Write a random Hugging Face ELECTRA checkpoint directory (torch only).

Run with /usr/bin/python3 (Debian python3-torch). The directory holds:
  config.json            HF ElectraConfig fields + "architectures" + "model_type": "electra";
                         id2label/label2id for classifiers; "problem_type": "regression"
                         with --regression; "electra_null_threshold" with --null-threshold;
                         "score_threshold" / "score_aggregation" with --score-threshold /
                         --score-aggregation
  model.safetensors      written by hand: u64 little-endian header length, JSON header
                         {name: {dtype, shape, data_offsets}, "__metadata__": {"format": "pt"}}
                         padded with spaces to a multiple of 8, then the tensor bytes
                         back to back (sorted by name, no holes)
  vocab.txt              --vocab PATH copied, or a built-in vocabulary of 655 entries:
                         [PAD] [UNK] [CLS] [SEP] [MASK] at ids 0-4, then printable ASCII
                         characters, "##" + letters/digits, common suffixes, 503 lower-case
                         English words and a few CJK characters
  tokenizer_config.json  {"do_lower_case": true|false, "tokenizer_class": "ElectraTokenizer", ...}

Tensor names follow HF modeling_electra.py (docs/MODEL.md §2); all five task models
prefix the encoder with "electra.". Values: every dense weight, embedding table and bias is
N(0, std); LayerNorm weight is 1 + N(0, 0.1) and LayerNorm bias N(0, 0.1) (non-trivial on
purpose, so a reference comparison exercises every parameter); generator_lm_head.weight equals
the word embeddings (HF ties them). The seed fixes everything.

CLI:
  make_checkpoint.py --arch pretraining|mlm|cls|qa|tokcls --out DIR
      [--hidden 32] [--layers 2] [--heads 2] [--intermediate 64]
      [--embedding E]          embedding_size (default = hidden; E != H adds embeddings_project)
      [--vocab PATH]           vocab.txt to copy (default: the built-in vocabulary)
      [--num-labels 2]         cls and tokcls
      [--labels A,B,...]       cls and tokcls: id2label names (sets num_labels; default LABEL_i)
      [--regression]           cls only: num_labels 1, "problem_type": "regression"
      [--max-position 64] [--type-vocab 2] [--std 0.02] [--seed 0]
      [--position-embedding-type absolute|relative_key|relative_key_query]
                               config.json "position_embedding_type"; the relative types add
                               electra.encoder.layer.{i}.attention.self.distance_embedding.weight
                               [2 max_position - 1, hidden / heads] to every layer (HF's
                               ElectraSelfAttention); position_embeddings stays, unused
      [--distance-std X]       std of the distance embeddings (default: --std)
      [--dtype f32|f16|bf16]   storage dtype of every tensor
      [--dtype-of NAME=DTYPE]  per-tensor override (repeatable), e.g. a 1-element F16 tensor
                               makes every following F32 tensor misaligned in the file
      [--tie]                  mlm only: omit generator_lm_head.weight (it is tied to the
                               word embeddings; without --tie it is written as a copy of them,
                               as torch.save of a tied HF model holds both)
      [--position-ids]         add the unused int64 buffer electra.embeddings.position_ids
      [--null-threshold X]     qa only: write "electra_null_threshold": X
      [--score-threshold X]    write "score_threshold": X (the /score default threshold)
      [--score-aggregation R]  write "score_aggregation": R (max, first or mean)
      [--cased]                tokenizer_config.json "do_lower_case": false

As a module:
  import make_checkpoint as mc
  tensors = mc.make_checkpoint(arch="cls", out="/tmp/x", hidden=32, ...)
      Keyword arguments mirror the CLI (dashes -> underscores; out=None writes nothing).
      Returns {name: tensor} exactly as stored in model.safetensors (in the storage dtype;
      position_ids as int64; without generator_lm_head.weight when tie=True).
  mc.full_state(tensors)      -> {name: float32 tensor} with buffers dropped and a tied
                                 generator_lm_head.weight filled in from the word embeddings
  mc.read_safetensors(path)   -> {name: tensor} read back from any safetensors file
  mc.builtin_vocab()          -> list of the built-in vocabulary tokens
  mc.config_dict(**kwargs)    -> the config.json dictionary that make_checkpoint writes
"""
import argparse
import json
import os
import shutil
import struct
import sys

import torch

ARCHS = {
    "pretraining": "ElectraForPreTraining",
    "mlm": "ElectraForMaskedLM",
    "cls": "ElectraForSequenceClassification",
    "qa": "ElectraForQuestionAnswering",
    "tokcls": "ElectraForTokenClassification",
}
POSITION_TYPES = ("absolute", "relative_key", "relative_key_query")
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
ST_NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
            torch.int64: "I64", torch.int32: "I32"}
# Bit-preserving integer views used to get raw bytes (torch 1.13 has no numpy bf16).
RAW_VIEW = {torch.float32: torch.int32, torch.float16: torch.int16,
            torch.bfloat16: torch.int16, torch.int64: torch.int64, torch.int32: torch.int32}

_WORDS = """
the of and to in is it you that he was for on are with as his they be at one have this from
or had by not word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long
make thing see him two has look more day could go come did number sound no most people my over
know water than call first who may down side been now find any new work part take get place
made live where after back little only round man year came show every good me give our under
name very through just form sentence great think say help low line differ turn cause much mean
before move right boy old too same tell does set three want air well also play small end put home
read hand port large spell add even land here must big high such follow act why ask men change
went light kind off need house picture try us again animal point mother world near build self
earth father head stand own page should country found answer school grow study still learn plant
cover food sun four between state keep eye never last let thought city tree cross farm hard start
might story saw far sea draw left late run don while press close night real life few north open
seem together next white children begin got walk example ease paper group always music those both
mark often letter until mile river car feet care second book carry took science eat room friend
began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain
girl usual young ready above ever red list though feel talk bird soon body dog family direct pose
leave song measure door product black short numeral class wind question happen complete ship area
half rock order fire south problem piece told knew pass since top whole king space heard best hour
better true during hundred five remember step early hold west ground interest reach fast verb sing
listen six table travel less morning ten simple several vowel toward war lay against pattern slow
center love person money serve appear road map rain rule govern pull cold notice voice unit power
town fine certain fly fall lead cry dark machine note wait plan figure star box noun field rest
correct able pound done beauty drive stood contain front teach week final gave green quick develop
ocean warm free minute strong special mind behind clear tail produce fact street inch multiply
nothing course stay wheel full force blue object decide surface deep moon island foot system busy
test record boat common gold possible plane stead dry wonder laugh thousand ago ran check game
shape equate hot miss brought heat snow tire bring yes distant fill east paint language among
movie film bad terrible awesome boring
""".split()
_SUFFIXES = ["##es", "##ed", "##ing", "##ly", "##er", "##est", "##ion", "##ness", "##ment"]
_CJK = ["中", "国", "日", "本", "人", "大", "学", "語"]


def builtin_vocab():
    """[PAD] [UNK] [CLS] [SEP] [MASK], ASCII chars, ## pieces, suffixes, words, CJK."""
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab += [chr(c) for c in range(33, 127)]
    vocab += ["##" + c for c in "abcdefghijklmnopqrstuvwxyz0123456789"]
    vocab += _SUFFIXES
    seen = set(vocab)
    for w in _WORDS:
        if w not in seen:
            seen.add(w)
            vocab.append(w)
    vocab += _CJK
    return vocab


def _defaults(kw):
    d = dict(arch="pretraining", out=None, hidden=32, layers=2, heads=2, intermediate=64,
             embedding=None, vocab=None, num_labels=2, regression=False, max_position=64,
             type_vocab=2, std=0.02, seed=0, dtype="f32", dtype_of=None, tie=False,
             position_ids=False, null_threshold=None, cased=False, labels=None,
             score_threshold=None, score_aggregation=None, position="absolute",
             distance_std=None)
    unknown = set(kw) - set(d)
    if unknown:
        raise TypeError("unknown arguments: %s" % ", ".join(sorted(unknown)))
    d.update(kw)
    if d["arch"] not in ARCHS:
        raise ValueError("arch must be one of %s" % ", ".join(ARCHS))
    if d["embedding"] is None:
        d["embedding"] = d["hidden"]
    if isinstance(d["labels"], str):
        d["labels"] = d["labels"].split(",")
    if d["labels"] is not None:
        d["num_labels"] = len(d["labels"])
    if d["regression"]:
        d["num_labels"] = 1
    if d["dtype"] not in DTYPES:
        raise ValueError("dtype must be f32, f16 or bf16")
    if d["position"] not in POSITION_TYPES:
        raise ValueError("position must be one of %s" % ", ".join(POSITION_TYPES))
    return d


def _vocab_tokens(d):
    if d["vocab"] is None:
        return builtin_vocab()
    with open(d["vocab"], encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def tensor_shapes(d, V):
    """Ordered list of (HF name, shape) for the architecture (docs/MODEL.md §2)."""
    H, E, I, L = d["hidden"], d["embedding"], d["intermediate"], d["layers"]
    p = "electra."
    s = [(p + "embeddings.word_embeddings.weight", [V, E]),
         (p + "embeddings.position_embeddings.weight", [d["max_position"], E]),
         (p + "embeddings.token_type_embeddings.weight", [d["type_vocab"], E]),
         (p + "embeddings.LayerNorm.weight", [E]),
         (p + "embeddings.LayerNorm.bias", [E])]
    if E != H:
        s += [(p + "embeddings_project.weight", [H, E]), (p + "embeddings_project.bias", [H])]
    for i in range(L):
        q = p + "encoder.layer.%d." % i
        for n in ("query", "key", "value"):
            s += [(q + "attention.self.%s.weight" % n, [H, H]),
                  (q + "attention.self.%s.bias" % n, [H])]
        s += [(q + "attention.output.dense.weight", [H, H]),
              (q + "attention.output.dense.bias", [H]),
              (q + "attention.output.LayerNorm.weight", [H]),
              (q + "attention.output.LayerNorm.bias", [H]),
              (q + "intermediate.dense.weight", [I, H]),
              (q + "intermediate.dense.bias", [I]),
              (q + "output.dense.weight", [H, I]),
              (q + "output.dense.bias", [H]),
              (q + "output.LayerNorm.weight", [H]),
              (q + "output.LayerNorm.bias", [H])]
        if d["position"] != "absolute":  # one table per layer, shared by its heads
            s += [(q + "attention.self.distance_embedding.weight",
                   [2 * d["max_position"] - 1, H // d["heads"]])]
    a = d["arch"]
    if a == "pretraining":
        s += [("discriminator_predictions.dense.weight", [H, H]),
              ("discriminator_predictions.dense.bias", [H]),
              ("discriminator_predictions.dense_prediction.weight", [1, H]),
              ("discriminator_predictions.dense_prediction.bias", [1])]
    elif a == "mlm":
        s += [("generator_predictions.dense.weight", [E, H]),
              ("generator_predictions.dense.bias", [E]),
              ("generator_predictions.LayerNorm.weight", [E]),
              ("generator_predictions.LayerNorm.bias", [E]),
              ("generator_lm_head.weight", [V, E]),
              ("generator_lm_head.bias", [V])]
    elif a == "cls":
        n = d["num_labels"]
        s += [("classifier.dense.weight", [H, H]), ("classifier.dense.bias", [H]),
              ("classifier.out_proj.weight", [n, H]), ("classifier.out_proj.bias", [n])]
    elif a == "tokcls":  # ElectraForTokenClassification: one Linear on every token
        n = d["num_labels"]
        s += [("classifier.weight", [n, H]), ("classifier.bias", [n])]
    else:
        s += [("qa_outputs.weight", [2, H]), ("qa_outputs.bias", [2])]
    return s


def config_dict(**kw):
    d = _defaults(kw)
    V = len(_vocab_tokens(d))
    return _config(d, V)


def _config(d, V):
    c = {
        "architectures": [ARCHS[d["arch"]]],
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "embedding_size": d["embedding"],
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": d["hidden"],
        "initializer_range": d["std"],
        "intermediate_size": d["intermediate"],
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": d["max_position"],
        "model_type": "electra",
        "num_attention_heads": d["heads"],
        "num_hidden_layers": d["layers"],
        "pad_token_id": 0,
        "position_embedding_type": d["position"],
        "summary_activation": "gelu",
        "summary_last_dropout": 0.1,
        "summary_type": "first",
        "summary_use_proj": True,
        "type_vocab_size": d["type_vocab"],
        "vocab_size": V,
    }
    if d["arch"] in ("cls", "tokcls"):
        n = d["num_labels"]
        names = d["labels"] or ["LABEL_%d" % i for i in range(n)]
        c["id2label"] = {str(i): names[i] for i in range(n)}
        c["label2id"] = {names[i]: i for i in range(n)}
        if d["regression"]:
            c["problem_type"] = "regression"
    if d["score_threshold"] is not None:
        c["score_threshold"] = float(d["score_threshold"])
    if d["score_aggregation"] is not None:
        c["score_aggregation"] = d["score_aggregation"]
    if d["arch"] == "qa" and d["null_threshold"] is not None:
        c["electra_null_threshold"] = float(d["null_threshold"])
    return c


def _random_tensors(d, V):
    g = torch.Generator().manual_seed(int(d["seed"]))
    std = float(d["std"])
    out = {}
    for name, shape in tensor_shapes(d, V):
        if name == "generator_lm_head.weight":
            # HF ties it to the word embeddings (tie_word_embeddings): same values.
            out[name] = out["electra.embeddings.word_embeddings.weight"].clone()
            continue
        if ".LayerNorm.weight" in name:
            t = 1.0 + 0.1 * torch.randn(shape, generator=g)
        elif ".LayerNorm.bias" in name:
            t = 0.1 * torch.randn(shape, generator=g)
        elif ".distance_embedding." in name and d["distance_std"] is not None:
            t = float(d["distance_std"]) * torch.randn(shape, generator=g)
        else:
            t = std * torch.randn(shape, generator=g)
        out[name] = t
    return out


def _parse_dtype_of(items):
    res = {}
    for it in items or []:
        if isinstance(it, (tuple, list)):
            name, dt = it
        else:
            name, _, dt = it.rpartition("=")
        if dt not in DTYPES:
            raise ValueError("--dtype-of %s: dtype must be f32, f16 or bf16" % it)
        res[name] = DTYPES[dt]
    return res


def write_safetensors(path, tensors):
    """Writes {name: tensor} (float or int dtypes) sorted by name, header padded to 8."""
    header, blobs, off = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].contiguous()
        raw = t.view(RAW_VIEW[t.dtype]).numpy().tobytes()
        header[name] = {"dtype": ST_NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    header["__metadata__"] = {"format": "pt"}
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    """Reads any safetensors file into {name: tensor} (F32/F16/BF16/I64/I32)."""
    by_name = {v: k for k, v in ST_NAMES.items()}
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        dt = by_name[e["dtype"]]
        a, b = e["data_offsets"]
        raw = bytearray(blob[base + a:base + b])
        t = torch.frombuffer(raw, dtype=RAW_VIEW[dt]) if raw else torch.empty(0, dtype=RAW_VIEW[dt])
        out[name] = t.view(dt).reshape(e["shape"]).clone()
    return out


def full_state(tensors):
    """float32 copy of a checkpoint's parameters: buffers dropped, tied lm weight filled."""
    st = {k: v.float() for k, v in tensors.items() if not k.endswith("position_ids")
          and not k.endswith("token_type_ids")}
    if "generator_lm_head.bias" in st and "generator_lm_head.weight" not in st:
        st["generator_lm_head.weight"] = st["electra.embeddings.word_embeddings.weight"].clone()
    return st


def make_checkpoint(**kw):
    """Builds (and with out=DIR writes) a random checkpoint; returns the stored tensors."""
    d = _defaults(kw)
    vocab = _vocab_tokens(d)
    V = len(vocab)
    f32 = _random_tensors(d, V)
    base = DTYPES[d["dtype"]]
    over = _parse_dtype_of(d["dtype_of"])
    unknown = set(over) - set(f32)
    if unknown:
        raise ValueError("--dtype-of names unknown tensors: %s" % ", ".join(sorted(unknown)))
    stored = {}
    for name, t in f32.items():
        if d["tie"] and d["arch"] == "mlm" and name == "generator_lm_head.weight":
            continue
        stored[name] = t.to(over.get(name, base))
    if d["position_ids"]:
        stored["electra.embeddings.position_ids"] = torch.arange(
            d["max_position"], dtype=torch.int64).unsqueeze(0)
    if d["out"] is not None:
        out = d["out"]
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
            json.dump(_config(d, V), f, indent=2, sort_keys=True)
            f.write("\n")
        write_safetensors(os.path.join(out, "model.safetensors"), stored)
        if d["vocab"] is not None:
            shutil.copyfile(d["vocab"], os.path.join(out, "vocab.txt"))
        else:
            with open(os.path.join(out, "vocab.txt"), "w", encoding="utf-8") as f:
                f.write("".join(tok + "\n" for tok in vocab))
        tc = {"do_lower_case": not d["cased"], "tokenizer_class": "ElectraTokenizer",
              "model_max_length": d["max_position"], "unk_token": "[UNK]", "sep_token": "[SEP]",
              "pad_token": "[PAD]", "cls_token": "[CLS]", "mask_token": "[MASK]",
              "tokenize_chinese_chars": True, "strip_accents": None}
        with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
            json.dump(tc, f, indent=2)
            f.write("\n")
    return stored


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", required=True, choices=sorted(ARCHS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--intermediate", type=int, default=64)
    ap.add_argument("--embedding", type=int, default=None)
    ap.add_argument("--vocab", default=None)
    ap.add_argument("--num-labels", type=int, default=2)
    ap.add_argument("--labels", default=None)
    ap.add_argument("--regression", action="store_true")
    ap.add_argument("--max-position", type=int, default=64)
    ap.add_argument("--type-vocab", type=int, default=2)
    ap.add_argument("--std", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--position-embedding-type", dest="position", choices=POSITION_TYPES,
                    default="absolute")
    ap.add_argument("--distance-std", type=float, default=None)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="f32")
    ap.add_argument("--dtype-of", action="append", default=[], metavar="NAME=DTYPE")
    ap.add_argument("--tie", action="store_true")
    ap.add_argument("--position-ids", action="store_true")
    ap.add_argument("--null-threshold", type=float, default=None)
    ap.add_argument("--cased", action="store_true")
    ap.add_argument("--score-threshold", type=float, default=None)
    ap.add_argument("--score-aggregation", default=None)
    a = ap.parse_args(argv)
    kw = vars(a)
    try:
        make_checkpoint(**kw)
    except (ValueError, OSError) as e:
        print("make_checkpoint.py: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
