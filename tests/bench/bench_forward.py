#!/usr/bin/python3
"""PyTorch twin of bench_forward.c: the same discriminator forward, same weights.

    bench_forward.py --model DIR [--threads 2] [--seconds 3] [--len 128]
                     [--batches 1,8,32] [--mixed 17,128,45,...] [--ids FILE] [--dump DIR]

Runs tests/reference/electra_ref.py (plain PyTorch, HF layout) in eval mode under
torch.no_grad() with torch.set_num_threads(THREADS). A mixed-length batch is padded
to its longest sequence with an attention mask, as PyTorch users run it; tokens/s and
GFLOP/s count real tokens only (the same FLOP formula as bench_forward.c). Prints
    case NAME SEQS TOKENS MS_BEST MS_MEDIAN TOKENS_PER_S GFLOPS
(throughput from the best run, as bench_forward.c). --ids FILE: packed int32 token
ids every side of bench_ort.sh reads (a case takes its first T); --dump DIR writes
DIR/NAME.f32, the real tokens' probabilities packed (float32), as bench_forward.c.
"""
import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import electra_ref as er  # noqa: E402


def flops(c, lens):
    H, E, I, L = c["hidden_size"], c["embedding_size"], c["intermediate_size"], \
        c["num_hidden_layers"]
    T = sum(lens)
    per_tok = L * (8.0 * H * H + 4.0 * H * I) + 2.0 * H * H + 2.0 * H
    if E != H:
        per_tok += 2.0 * E * H
    return T * per_tok + L * sum(4.0 * H * n * n for n in lens)


def inputs(c, lens, packed):
    """ids and mask [B, S] padded to the longest sequence."""
    S = max(lens)
    if packed is None:
        g = torch.Generator().manual_seed(12345)
        ids = torch.randint(5, c["vocab_size"], (len(lens), S), generator=g)
    else:
        if sum(lens) > packed.numel():
            sys.exit("bench_forward.py: the ids file holds %d tokens, a case needs %d" %
                     (packed.numel(), sum(lens)))
        ids = torch.zeros(len(lens), S, dtype=torch.long)
    mask = torch.zeros(len(lens), S, dtype=torch.long)
    t = 0
    for r, n in enumerate(lens):
        mask[r, :n] = 1
        if packed is not None:
            ids[r, :n] = packed[t:t + n]
        t += n
    return ids, mask


def bench(model, name, lens, seconds, packed=None, dump=None):
    c = model.config
    ids, mask = inputs(c, lens, packed)
    types = torch.zeros_like(ids)
    times = []
    with torch.no_grad():
        out = model(ids, types, mask)  # warm-up
        start = time.perf_counter()
        while len(times) < 3 or time.perf_counter() - start < seconds:
            t0 = time.perf_counter()
            model(ids, types, mask)
            times.append(time.perf_counter() - t0)
    if dump:
        real = torch.cat([out["replaced"][r, :n] for r, n in enumerate(lens)])
        real.float().numpy().tofile(os.path.join(dump, name + ".f32"))
    times.sort()
    best, med = times[0], times[len(times) // 2]
    T = sum(lens)
    print("case %s %d %d %.3f %.3f %.1f %.1f" % (name, len(lens), T, best * 1e3, med * 1e3,
                                                 T / best, flops(c, lens) / best / 1e9), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--len", type=int, default=128)
    ap.add_argument("--batches", default="1,8,32")
    ap.add_argument("--mixed", default="")
    ap.add_argument("--ids", default=None)
    ap.add_argument("--dump", default=None)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    model = er.load(a.model)
    packed = None
    if a.ids:
        with open(a.ids, "rb") as f:
            packed = torch.frombuffer(bytearray(f.read()), dtype=torch.int32).long()
    for b in [int(x) for x in a.batches.split(",") if x]:
        bench(model, "b%dx%d" % (b, a.len), [a.len] * b, a.seconds, packed, a.dump)
    if a.mixed:
        bench(model, "mixed", [int(x) for x in a.mixed.split(",")], a.seconds, packed, a.dump)
    return 0


if __name__ == "__main__":
    sys.exit(main())
