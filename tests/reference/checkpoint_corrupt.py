#!/usr/bin/python3
"""Fixtures for tests/reference/test_checkpoint_corrupt.sh.

  checkpoint_corrupt.py OUTDIR

Writes, with make_checkpoint.py, valid checkpoints of the five architectures
(E == H and E != H; F32/F16/BF16; tied lm head; position_ids buffer; misaligned
F32 tensors) each with ref.safetensors (every parameter as float32, as PyTorch
sees it), then one corrupted copy per defect of the loader's contract. Prints
a manifest, one case per line, fields separated by tabs:

  roundtrip LABEL DIR REF            load, compare with REF, save, reload, compare
  expect LABEL DIR CODE SUBSTR...    el_model_load must fail with CODE, message
                                     holding every SUBSTR (file, tensor/field,
                                     expected, found)

The expected substrings are derived here from the fixture (shapes, names),
independently of the C code.
"""
import json
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_checkpoint as mc  # noqa: E402

import torch  # noqa: E402

OUT = None
LINES = []


def emit(*fields):
    for f in fields:
        assert "\t" not in str(f) and "\n" not in str(f), f
    LINES.append("\t".join(str(f) for f in fields))


def make(name, **kw):
    d = os.path.join(OUT, name)
    tensors = mc.make_checkpoint(out=d, **kw)
    return d, tensors


def roundtrip(name, **kw):
    d, tensors = make(name, **kw)
    ref = os.path.join(d, "ref.safetensors")
    mc.write_safetensors(ref, mc.full_state(tensors))
    emit("roundtrip", name, d, ref)


def copy(src, name):
    d = os.path.join(OUT, name)
    shutil.copytree(src, d)
    return d


def read_raw(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    return json.loads(blob[8:8 + n]), blob[8 + n:]


def write_raw(path, header, data, pad=True):
    hb = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        hb += b" " * ((8 - len(hb) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hb)) + hb + data)


def edit_header(d, fn):
    """Calls fn(header) to change the header in place; data bytes unchanged."""
    p = os.path.join(d, "model.safetensors")
    h, data = read_raw(p)
    fn(h)
    write_raw(p, h, data)


def edit_config(d, fn, name="config.json"):
    p = os.path.join(d, name)
    with open(p) as f:
        c = json.load(f)
    fn(c)
    with open(p, "w") as f:
        json.dump(c, f, indent=2)


def poke_float(d, tensor, index, value):
    """Overwrites element `index` of an F32/F16/BF16 tensor in the file."""
    p = os.path.join(d, "model.safetensors")
    h, data = read_raw(p)
    e = h[tensor]
    size = {"F32": 4, "F16": 2, "BF16": 2}[e["dtype"]]
    t = torch.tensor([value], dtype={"F32": torch.float32, "F16": torch.float16,
                                     "BF16": torch.bfloat16}[e["dtype"]])
    raw = t.view({4: torch.int32, 2: torch.int16}[size]).numpy().tobytes()
    at = e["data_offsets"][0] + index * size
    data = data[:at] + raw + data[at + size:]
    write_raw(p, h, data)


def expect(label, d, code, *subs):
    emit("expect", label, d, code, *subs)


def shape_str(s):
    return "[" + ", ".join(str(x) for x in s) + "]"


def main():
    global OUT
    OUT = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    H, E = 32, 16

    # ---- valid checkpoints: load, compare with PyTorch, save, reload ----
    roundtrip("pt-f32-EeqH-posids", arch="pretraining", position_ids=True, seed=1)
    roundtrip("pt-bf16-EneH", arch="pretraining", embedding=E, dtype="bf16", seed=2)
    roundtrip("mlm-f16-EneH-tied", arch="mlm", embedding=E, dtype="f16", tie=True, seed=3)
    roundtrip("mlm-f32-EeqH-lmhead-present", arch="mlm", seed=4, position_ids=True)
    roundtrip("cls-bf16-EeqH-3labels-posids", arch="cls", num_labels=3, dtype="bf16",
              position_ids=True, seed=5)
    roundtrip("cls-f32-EneH-regression", arch="cls", regression=True, embedding=E, seed=6,
              cased=True)
    roundtrip("qa-f16-EneH-null", arch="qa", embedding=E, dtype="f16", null_threshold=-0.75,
              seed=7)
    roundtrip("qa-f32-EeqH", arch="qa", seed=8, layers=3, heads=4)
    roundtrip("tokcls-f16-EneH-2labels", arch="tokcls", labels="CORRECT,INCORRECT",
              embedding=E, dtype="f16", score_threshold=0.3, score_aggregation="first", seed=14)
    # A 1-element F16 tensor first in the file: every F32 tensor after it sits at an
    # offset = 2 (mod 4) and must be copied, not used in place.
    roundtrip("pt-f32-misaligned", arch="pretraining", embedding=E, seed=9,
              dtype_of=["discriminator_predictions.dense.bias=f16"])

    # ---- defects ----
    base, bt = make("base", arch="pretraining", embedding=E, seed=10)
    st = "model.safetensors"
    stp = os.path.join(base, st)
    size = os.path.getsize(stp)
    hdr, data = read_raw(stp)
    names = sorted(k for k in hdr if k != "__metadata__")

    d = copy(base, "truncated-half")
    with open(os.path.join(d, st), "r+b") as f:
        f.truncate(size // 2)
    expect("truncated file (half)", d, "EL_EFORMAT", st, "outside the data section", "truncated")
    d = copy(base, "truncated-last-byte")
    with open(os.path.join(d, st), "r+b") as f:
        f.truncate(size - 1)
    last = max(names, key=lambda k: hdr[k]["data_offsets"][1])
    expect("truncated file (one byte)", d, "EL_EFORMAT", st, '"%s"' % last, "outside")
    d = copy(base, "truncated-4")
    with open(os.path.join(d, st), "r+b") as f:
        f.truncate(4)
    expect("truncated file (4 bytes)", d, "EL_EFORMAT", st, "shorter than the 8-byte")
    d = copy(base, "empty-file")
    open(os.path.join(d, st), "wb").close()
    expect("empty model.safetensors", d, "EL_EFORMAT", st, "0 bytes")

    d = copy(base, "header-past-end")
    with open(os.path.join(d, st), "r+b") as f:
        f.write(struct.pack("<Q", size + 100))
    expect("header length past the end", d, "EL_EFORMAT", st, "header length %d" % (size + 100),
           "past the end")
    d = copy(base, "header-huge")
    with open(os.path.join(d, st), "r+b") as f:
        f.write(struct.pack("<Q", 2**64 - 1))
    expect("header length 2^64-1", d, "EL_EFORMAT", st, "past the end")

    d = copy(base, "bad-json")
    with open(os.path.join(d, st), "r+b") as f:
        f.seek(8 + 40)
        f.write(b"#")
    expect("bad JSON header", d, "EL_EFORMAT", st, "invalid JSON header")
    d = copy(base, "header-not-object")
    write_raw(os.path.join(d, st), [1, 2], data)
    expect("header is an array", d, "EL_EFORMAT", st, "not a JSON object")

    d = copy(base, "unknown-dtype")
    edit_header(d, lambda h: h["electra.embeddings.LayerNorm.weight"].update(dtype="F99"))
    expect("unknown dtype", d, "EL_EFORMAT", st, '"electra.embeddings.LayerNorm.weight"', "F99")
    d = copy(base, "dtype-f64")
    edit_header(d, lambda h: h["electra.embeddings.LayerNorm.weight"].update(dtype="F64",
                                                                            shape=[E // 2]))
    expect("dtype F64", d, "EL_EUNSUPPORTED", st, '"electra.embeddings.LayerNorm.weight"', "F64")
    d = copy(base, "dtype-i64-weight")
    edit_header(d, lambda h: h["electra.embeddings.LayerNorm.bias"].update(dtype="I64",
                                                                          shape=[E // 2]))
    expect("I64 weight", d, "EL_EUNSUPPORTED", st, '"electra.embeddings.LayerNorm.bias"', "I64",
           "expected F32, F16 or BF16")

    d = copy(base, "offsets-outside")
    t = "electra.encoder.layer.0.output.dense.bias"
    edit_header(d, lambda h: h[t].update(data_offsets=[len(data) + 64, len(data) + 64 + H * 4]))
    expect("offsets outside the data", d, "EL_EFORMAT", st, '"%s"' % t, "outside the data section",
           "[%d, %d]" % (len(data) + 64, len(data) + 64 + H * 4))
    d = copy(base, "overlap")
    # b grows over the tensor stored right after it, a; the file stays tiled.
    a, b = "electra.encoder.layer.0.output.LayerNorm.weight", "electra.encoder.layer.0.output.LayerNorm.bias"
    assert hdr[a]["data_offsets"][0] == hdr[b]["data_offsets"][1]
    def grow(h):
        o = h[b]["data_offsets"][0]
        h[b].update(shape=[2 * H], data_offsets=[o, o + 8 * H])
    edit_header(d, grow)
    expect("overlapping tensors", d, "EL_EFORMAT", st, "overlap", '"%s"' % a, '"%s"' % b)
    d = copy(base, "overlap-partial")
    def shift(h):
        o = h[b]["data_offsets"]
        h[b]["data_offsets"] = [o[0] - 8, o[1] - 8]
    edit_header(d, shift)
    expect("partially overlapping tensors", d, "EL_EFORMAT", st, "overlap", '"%s"' % b)
    d = copy(base, "hole")
    edit_header(d, lambda h: h.pop("electra.encoder.layer.1.output.dense.bias"))
    expect("bytes belonging to no tensor", d, "EL_EFORMAT", st, "belong to no tensor")
    d = copy(base, "trailing")
    with open(os.path.join(d, st), "ab") as f:
        f.write(b"\0" * 16)
    expect("trailing bytes", d, "EL_EFORMAT", st, "16 bytes after the last tensor")
    d = copy(base, "bytes-vs-shape")
    edit_header(d, lambda h: h["electra.embeddings.LayerNorm.bias"].update(shape=[E + 1]))
    expect("shape vs byte count", d, "EL_EFORMAT", st, '"electra.embeddings.LayerNorm.bias"',
           "needs %d bytes" % ((E + 1) * 4))
    d = copy(base, "duplicate")
    p = os.path.join(d, st)
    h, dat = read_raw(p)
    txt = json.dumps(h, separators=(",", ":"))
    dup = '"electra.embeddings.LayerNorm.bias":' + json.dumps(
        h["electra.embeddings.LayerNorm.bias"], separators=(",", ":"))
    txt = txt[:-1] + "," + dup + "}"
    txt += " " * ((8 - len(txt) % 8) % 8)
    with open(p, "wb") as f:
        f.write(struct.pack("<Q", len(txt)) + txt.encode() + dat)
    expect("duplicate tensor name", d, "EL_EFORMAT", st, '"electra.embeddings.LayerNorm.bias"',
           "twice")

    d = copy(base, "wrong-shape")
    t = "electra.embeddings_project.weight"
    edit_header(d, lambda h: h[t].update(shape=[E, H]))
    expect("wrong shape (transposed)", d, "EL_ESHAPE", st, '"%s"' % t,
           "expected shape %s, found %s" % (shape_str([H, E]), shape_str([E, H])))
    d = copy(base, "wrong-ndim")
    t = "electra.encoder.layer.1.attention.self.query.weight"
    edit_header(d, lambda h: h[t].update(shape=[H * H]))
    expect("wrong number of dimensions", d, "EL_ESHAPE", st, '"%s"' % t,
           "expected shape [%d, %d], found [%d]" % (H, H, H * H))

    d = copy(base, "missing-tensor")
    tens = mc.read_safetensors(os.path.join(d, st))
    t = "electra.encoder.layer.1.output.dense.bias"
    del tens[t]
    mc.write_safetensors(os.path.join(d, st), tens)
    expect("missing tensor", d, "EL_EFORMAT", st, 'missing tensor "%s"' % t,
           "expected shape [%d]" % H)
    d = copy(base, "unexpected-tensor")
    tens = mc.read_safetensors(os.path.join(d, st))
    tens["electra.pooler.dense.weight"] = torch.zeros(H, H)
    mc.write_safetensors(os.path.join(d, st), tens)
    expect("unexpected tensor", d, "EL_EFORMAT", st, 'unexpected tensor "electra.pooler.dense.weight"')
    d = copy(base, "float-position-ids")
    tens = mc.read_safetensors(os.path.join(d, st))
    tens["electra.embeddings.position_ids"] = torch.arange(64, dtype=torch.float32)[None]
    mc.write_safetensors(os.path.join(d, st), tens)
    expect("position_ids as F32 is not the known buffer", d, "EL_EFORMAT", st,
           'unexpected tensor "electra.embeddings.position_ids"')
    d = copy(base, "cls-head-in-pretraining")
    edit_config(d, lambda c: c.update(architectures=["ElectraForSequenceClassification"]))
    expect("architecture does not match the tensors", d, "EL_EFORMAT", st,
           "discriminator_predictions", "ElectraForSequenceClassification")

    d = copy(base, "nan")
    t = "electra.encoder.layer.0.intermediate.dense.weight"
    poke_float(d, t, 7, float("nan"))
    expect("NaN in weights", d, "EL_EVALUE", st, '"%s"' % t, "NaN", "index 7")
    d, _ = make("inf-bf16", arch="qa", dtype="bf16", seed=11)
    t = "qa_outputs.weight"
    poke_float(d, t, 3, float("inf"))
    expect("Inf in BF16 weights", d, "EL_EVALUE", st, '"%s"' % t, "Inf", "index 3")
    d, _ = make("nan-f16", arch="mlm", dtype="f16", embedding=E, seed=12, tie=True)
    t = "generator_lm_head.bias"
    poke_float(d, t, 100, float("nan"))
    expect("NaN in F16 weights", d, "EL_EVALUE", st, '"%s"' % t, "NaN", "index 100")

    # config.json
    cj = "config.json"
    for label, field, value, code, subs in [
        ("hidden_size 0", "hidden_size", 0, "EL_ESHAPE", ["hidden_size", "found 0"]),
        ("negative heads", "num_attention_heads", -2, "EL_ESHAPE",
         ["num_attention_heads", "found -2"]),
        ("zero layers", "num_hidden_layers", 0, "EL_ESHAPE", ["num_hidden_layers", "found 0"]),
        ("negative vocab", "vocab_size", -1, "EL_ESHAPE", ["vocab_size", "found -1"]),
        ("zero intermediate", "intermediate_size", 0, "EL_ESHAPE", ["intermediate_size"]),
        ("zero positions", "max_position_embeddings", 0, "EL_ESHAPE",
         ["max_position_embeddings"]),
        ("hidden not divisible by heads", "num_attention_heads", 3, "EL_ESHAPE",
         ["hidden_size 32 is not divisible by num_attention_heads 3"]),
        ("too many layers", "num_hidden_layers", 1000, "EL_ESHAPE", ["num_hidden_layers", "1000"]),
        ("hidden_size as a string", "hidden_size", "32", "EL_EFORMAT", ["hidden_size"]),
        ("hidden_act relu", "hidden_act", "relu", "EL_EUNSUPPORTED", ["hidden_act", "relu"]),
        ("unknown architecture", "architectures", ["ElectraForMultipleChoice"], "EL_EUNSUPPORTED",
         ["ElectraForMultipleChoice"]),
        ("architectures empty", "architectures", [], "EL_EFORMAT", ["architectures"]),
        ("config larger than the tensors", "intermediate_size", 128, "EL_ESHAPE",
         ["electra.encoder.layer.0.intermediate.dense.bias",
          "expected shape [128], found [64]"]),
    ]:
        d = copy(base, "config-" + label.replace(" ", "-"))
        edit_config(d, lambda c, f=field, v=value: c.update({f: v}))
        where = st if subs[0].startswith("electra.") else cj
        expect("config: " + label, d, code, where, *subs)
    d = copy(base, "config-missing")
    os.remove(os.path.join(d, cj))
    expect("missing config.json", d, "EL_EIO", cj, "No such file")
    d = copy(base, "config-bad-json")
    with open(os.path.join(d, cj), "a") as f:
        f.write("}")
    expect("config.json bad JSON", d, "EL_EFORMAT", cj)
    d = copy(base, "tokenizer-config-bad")
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        f.write('{"do_lower_case": "yes"}')
    expect("tokenizer_config.json do_lower_case a string", d, "EL_EFORMAT",
           "tokenizer_config.json", "do_lower_case")

    # vocab
    V = len(mc.builtin_vocab())
    d = copy(base, "vocab-missing")
    os.remove(os.path.join(d, "vocab.txt"))
    expect("missing vocab.txt", d, "EL_EIO", "vocab.txt")
    d = copy(base, "vocab-short")
    with open(os.path.join(d, "vocab.txt")) as f:
        lines = f.readlines()
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.writelines(lines[:-1])
    expect("vocab.txt one token short", d, "EL_ESHAPE", "vocab.txt", "%d tokens" % (V - 1),
           "%d" % V)
    d = copy(base, "vocab-vs-embeddings")
    with open(os.path.join(d, "vocab.txt"), "a") as f:
        f.write("extra1\nextra2\n")
    edit_config(d, lambda c: c.update(vocab_size=V + 2))
    expect("vocab size vs embedding rows", d, "EL_ESHAPE", st,
           '"electra.embeddings.word_embeddings.weight"',
           "expected shape [%d, %d], found [%d, %d]" % (V + 2, E, V, E))
    d = copy(base, "vocab-no-mask")
    with open(os.path.join(d, "vocab.txt")) as f:
        lines = f.readlines()
    lines[4] = "[MASKED]\n"
    with open(os.path.join(d, "vocab.txt"), "w") as f:
        f.writelines(lines)
    expect("vocab.txt without [MASK]", d, "EL_EFORMAT", "vocab.txt", "[MASK]")

    # classifier config vs tensors
    c3, _ = make("cls-labels", arch="cls", num_labels=2, seed=13)
    d = copy(c3, "cls-labels-mismatch")
    edit_config(d, lambda c: c.update(id2label={"0": "a", "1": "b", "2": "c"},
                                      label2id={"a": 0, "b": 1, "c": 2}))
    expect("num_labels vs classifier.out_proj", d, "EL_ESHAPE", st,
           '"classifier.out_proj.bias"', "expected shape [3], found [2]")
    t2, _ = make("tokcls-labels", arch="tokcls", num_labels=2, seed=15)
    d = copy(t2, "tokcls-labels-mismatch")
    edit_config(d, lambda c: c.update(id2label={"0": "c", "1": "i", "2": "x"},
                                      label2id={"c": 0, "i": 1, "x": 2}))
    expect("num_labels vs token classifier", d, "EL_ESHAPE", st,
           '"classifier.bias"', "expected shape [3], found [2]")
    d = copy(t2, "tokcls-as-seqcls")
    edit_config(d, lambda c: c.update(architectures=["ElectraForSequenceClassification"]))
    expect("token classifier weights under ElectraForSequenceClassification", d, "EL_EFORMAT",
           st, '"classifier.bias"', "unexpected")
    d = copy(t2, "tokcls-bad-threshold")
    edit_config(d, lambda c: c.update(score_threshold=1.25))
    expect("score_threshold outside [0, 1]", d, "EL_EFORMAT", "config.json",
           '"score_threshold"', "[0, 1]")
    d = copy(t2, "tokcls-bad-aggregation")
    edit_config(d, lambda c: c.update(score_aggregation="median"))
    expect("unknown score_aggregation", d, "EL_EFORMAT", "config.json",
           '"score_aggregation"', "median")

    print("\n".join(LINES))


if __name__ == "__main__":
    main()
