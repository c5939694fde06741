#!/usr/bin/python3
"""Exports a discriminator checkpoint to ONNX for bench_ort.sh (ONNX Runtime's side).

    export_onnx.py --model DIR --out FILE.onnx

The graph is tests/reference/electra_ref.py's forward (the PyTorch side of the
benchmarks, same weights), traced by torch.onnx.export at opset 14 with inputs
ids, types, mask (int64 [batch, seq]) and output replaced (float32 [batch, seq],
sigmoid of the discriminator logit): the model a user would hand to ONNX Runtime.
Batch and sequence length are dynamic axes, so one file serves every case.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
import electra_ref as er  # noqa: E402


class Replaced(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, types, mask):
        return self.model(ids, types, mask)["replaced"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    model = er.load(a.model)
    if model.arch != "ElectraForPreTraining":
        sys.exit("export_onnx.py: %s is %s, not a discriminator" % (a.model, model.arch))
    ids = torch.full((2, 16), 5, dtype=torch.long)
    axes = {0: "batch", 1: "seq"}
    with torch.no_grad():
        torch.onnx.export(Replaced(model), (ids, torch.zeros_like(ids), torch.ones_like(ids)),
                          a.out, opset_version=14, input_names=["ids", "types", "mask"],
                          output_names=["replaced"],
                          dynamic_axes={"ids": axes, "types": axes, "mask": axes,
                                        "replaced": axes})
    return 0


if __name__ == "__main__":
    sys.exit(main())
