#!/usr/bin/python3
"""Converts a checkpoint's PyTorch weights (pytorch_model.bin) to model.safetensors.

electra-server and electra-train read model.safetensors only. A Hugging Face checkpoint
directory that ships just pytorch_model.bin (older hub models) is converted in place:

    scripts/convert_pytorch_bin.py DIR            # writes DIR/model.safetensors
    scripts/convert_pytorch_bin.py DIR --dtype f32 --out OTHER/model.safetensors

Needs Debian's python3-torch (/usr/bin/python3); nothing else (no safetensors package).
A sharded checkpoint (pytorch_model.bin.index.json + pytorch_model-0000N-of-0000M.bin) is
read shard by shard. config.json, vocab.txt and tokenizer_config.json stay as they are.

The file written is the safetensors format the engine reads (docs/MODEL.md §10):
  8 bytes      little-endian u64: N, the header's length
  N bytes      JSON header {NAME: {"dtype": "F32"|"F16"|"BF16"|"I64"|"I32",
               "shape": [...], "data_offsets": [BEGIN, END]}, ...,
               "__metadata__": {"format": "pt"}}, padded with spaces to a multiple of 8
  the tensors' bytes, back to back in the header's (name-sorted) order, little-endian,
  row-major; offsets relative to the end of the header.
Every tensor keeps its name and dtype (--dtype converts floating tensors); tensors that
share storage in the .bin (HF ties generator_lm_head.weight to the word embeddings) are
written once each, as torch.save stored them. Loading with weights_only=True runs no code
from the file. The result is checked by reading it back.
"""
import argparse
import json
import os
import struct
import sys

try:
    import torch
except ImportError:
    sys.exit("convert_pytorch_bin.py: needs PyTorch: apt-get install python3-torch "
             "(and run it with /usr/bin/python3)")

NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
         torch.int64: "I64", torch.int32: "I32"}
# integer views of the same bits, so bytes come out unchanged (numpy has no bf16)
VIEWS = {torch.float32: torch.int32, torch.float16: torch.int16, torch.bfloat16: torch.int16,
         torch.int64: torch.int64, torch.int32: torch.int32}
DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}


def load_state(path):
    """{name: tensor} of one .bin file (a plain state dict, or one under "state_dict"/"model")."""
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:  # a torch without weights_only
        obj = torch.load(path, map_location="cpu")
    for key in ("state_dict", "model"):
        if isinstance(obj, dict) and len(obj) == 1 and isinstance(obj.get(key), dict):
            obj = obj[key]
    if not isinstance(obj, dict):
        raise SystemExit("%s: not a state dict (a %s)" % (path, type(obj).__name__))
    return obj


def load_dir(d):
    single = os.path.join(d, "pytorch_model.bin")
    index = os.path.join(d, "pytorch_model.bin.index.json")
    if os.path.isfile(single):
        return load_state(single)
    if os.path.isfile(index):
        with open(index, encoding="utf-8") as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        state = {}
        for s in shards:
            state.update(load_state(os.path.join(d, s)))
        return state
    raise SystemExit("%s: no pytorch_model.bin (nor pytorch_model.bin.index.json)" % d)


def write_safetensors(path, tensors):
    header, order, off = {}, sorted(tensors), 0
    for name in order:
        t = tensors[name]
        n = t.numel() * t.element_size()
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [off, off + n]}
        off += n
    header["__metadata__"] = {"format": "pt"}
    hb = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hb += b" " * (-len(hb) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hb)))
        f.write(hb)
        for name in order:
            t = tensors[name]
            if t.numel():
                f.write(t.view(VIEWS[t.dtype]).numpy().tobytes())
    os.replace(tmp, path)


def read_back(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    by_name = {v: k for k, v in NAMES.items()}
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        dt = by_name[e["dtype"]]
        a, b = e["data_offsets"]
        raw = bytearray(blob[8 + n + a:8 + n + b])
        t = torch.frombuffer(raw, dtype=VIEWS[dt]) if raw else torch.empty(0, dtype=VIEWS[dt])
        out[name] = t.view(dt).reshape(e["shape"])
    return out


def main():
    ap = argparse.ArgumentParser(description="pytorch_model.bin -> model.safetensors "
                                 "(the format electra.c reads)")
    ap.add_argument("dir", help="checkpoint directory holding pytorch_model.bin")
    ap.add_argument("--out", help="file to write (default DIR/model.safetensors)")
    ap.add_argument("--dtype", choices=sorted(DTYPES), help="store floating tensors as this "
                    "(default: as they are in the .bin)")
    ap.add_argument("--force", action="store_true", help="replace an existing output file")
    a = ap.parse_args()
    out = a.out or os.path.join(a.dir, "model.safetensors")
    if os.path.exists(out) and not a.force:
        sys.exit("convert_pytorch_bin.py: %s exists (--force replaces it)" % out)
    state = load_dir(a.dir)
    tensors, skipped = {}, []
    for name, t in state.items():
        if not isinstance(t, torch.Tensor):
            skipped.append(name)
            continue
        if a.dtype and t.is_floating_point():
            t = t.to(DTYPES[a.dtype])
        if t.dtype not in NAMES:
            sys.exit("convert_pytorch_bin.py: %s has dtype %s, which safetensors files here do "
                     "not hold" % (name, t.dtype))
        tensors[name] = t.detach().contiguous().clone()
    if not tensors:
        sys.exit("convert_pytorch_bin.py: %s holds no tensors" % a.dir)
    write_safetensors(out, tensors)
    back = read_back(out)
    if set(back) != set(tensors) or any(not torch.equal(back[k], tensors[k]) for k in tensors):
        sys.exit("convert_pytorch_bin.py: %s does not read back as written" % out)
    print("%s: %d tensors, %d bytes%s" % (out, len(tensors), os.path.getsize(out),
                                          " (skipped non-tensors: %s)" % ", ".join(skipped)
                                          if skipped else ""))


if __name__ == "__main__":
    main()
