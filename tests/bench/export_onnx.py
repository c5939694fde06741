#!/usr/bin/python3
"""Exports a discriminator checkpoint to ONNX for bench_ort.sh (ONNX Runtime's side).

    export_onnx.py --model DIR --out FILE.onnx [--int8 FILE_INT8.onnx [--per-tensor]]
    export_onnx.py --quantize FILE.onnx --int8 FILE_INT8.onnx [--per-tensor]

The graph is tests/reference/electra_ref.py's forward (the PyTorch side of the
benchmarks, same weights), traced by torch.onnx.export at opset 14 with inputs
ids, types, mask (int64 [batch, seq]) and output replaced (float32 [batch, seq],
sigmoid of the discriminator logit): the model a user would hand to ONNX Runtime.
Batch and sequence length are dynamic axes, so one file serves every case.

--int8 also writes the model as ONNX Runtime's dynamic quantization
(onnxruntime.quantization.quantize_dynamic, QuantFormat.QOperator, weight type
QInt8) writes it, built here with Debian's python3-onnx because the onnxruntime
Python package is not in Debian:
  - every MatMul whose B is a weight (MatMulConstBOnly, quantize_dynamic's
    default) becomes DynamicQuantizeLinear(A) -> MatMulInteger(A_u8, W_s8, A_zp,
    W_zp) -> Cast(float) -> Mul(A_scale * W_scale); an activation feeding several
    MatMuls (Q, K and V) is quantized once. Weights are int8 symmetric, per output
    channel (per_channel=True; --per-tensor: one scale per matrix, the tool's
    default), codes in [-127, 127]; activations uint8 asymmetric per tensor,
    computed at run time. ONNX Runtime fuses each chain into DynamicQuantizeMatMul
    when it loads the model (graph optimisation level "all").
  - every Gather from an embedding table (the tool's GatherQuant) gathers from a
    uint8 table (asymmetric, per tensor) followed by DequantizeLinear.
  - attention's activation x activation MatMuls, LayerNorm, GELU and softmax stay
    fp32, as the tool leaves them.
The result is checked against the fp32 graph before it is written: onnx.checker,
no weight MatMul left in fp32, and every quantized table dequantizing to within
half a step of its fp32 values. (The probabilities are compared by bench_ort.sh,
which runs both files in ONNX Runtime.)
"""
import argparse
import os
import sys

import numpy as np


def export_fp32(model_dir, out):
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "reference"))
    import electra_ref as er

    class Replaced(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, ids, types, mask):
            return self.model(ids, types, mask)["replaced"]

    model = er.load(model_dir)
    if model.arch != "ElectraForPreTraining":
        sys.exit("export_onnx.py: %s is %s, not a discriminator" % (model_dir, model.arch))
    ids = torch.full((2, 16), 5, dtype=torch.long)
    axes = {0: "batch", 1: "seq"}
    with torch.no_grad():
        torch.onnx.export(Replaced(model), (ids, torch.zeros_like(ids), torch.ones_like(ids)),
                          out, opset_version=14, input_names=["ids", "types", "mask"],
                          output_names=["replaced"],
                          dynamic_axes={"ids": axes, "types": axes, "mask": axes,
                                        "replaced": axes})


def quantize_s8_symmetric(w, axis):
    """int8 codes in [-127, 127] and scales; axis None: one scale, else one per index
    along axis (the output channel of a [K, N] MatMul weight is axis 1)."""
    if axis is None:
        absmax = np.abs(w).max(keepdims=False)
    else:
        absmax = np.abs(w).max(axis=tuple(i for i in range(w.ndim) if i != axis))
    scale = (np.maximum(absmax, 1e-30) / 127.0).astype(np.float32)
    bshape = [1] * w.ndim
    if axis is not None:
        bshape[axis] = -1
    q = np.clip(np.rint(w / scale.reshape(bshape)), -127, 127).astype(np.int8)
    return q, scale, np.zeros_like(scale, dtype=np.int8)


def quantize_u8_asymmetric(w):
    """uint8 codes over [min(w, 0), max(w, 0)] (0 exactly representable), one scale."""
    lo, hi = min(float(w.min()), 0.0), max(float(w.max()), 0.0)
    scale = np.float32((hi - lo) / 255.0 if hi > lo else 1.0)
    zp = np.uint8(np.clip(np.rint(-lo / scale), 0, 255))
    q = np.clip(np.rint(w / scale) + zp, 0, 255).astype(np.uint8)
    return q, scale, zp


class Quantizer:
    def __init__(self, model, per_channel):
        from onnx import numpy_helper
        self.np = numpy_helper
        self.model = model
        self.per_channel = per_channel
        self.inits = {t.name: t for t in model.graph.initializer}
        self.new_inits = []
        self.dynamic = {}   # activation name -> (u8, scale, zp) names
        self.checks = []    # (fp32 array, dequantized array, step) per quantized table
        self.replaced = {"MatMul": 0, "Gather": 0}

    def add_init(self, name, array):
        self.new_inits.append(self.np.from_array(np.asarray(array), name))
        return name

    def dynamic_quant(self, x, nodes):
        from onnx import helper
        if x not in self.dynamic:
            names = (x + "_quantized", x + "_scale", x + "_zero_point")
            nodes.append(helper.make_node("DynamicQuantizeLinear", [x], list(names),
                                          x + "_QuantizeLinear"))
            self.dynamic[x] = names
        return self.dynamic[x]

    def matmul(self, node, nodes):
        from onnx import TensorProto, helper
        a, b = node.input
        w = self.np.to_array(self.inits[b]).astype(np.float32)
        q, scale, zp = quantize_s8_symmetric(w, 1 if self.per_channel else None)
        bshape = [1, -1] if self.per_channel else [1, 1]
        self.checks.append((b, w, q.astype(np.float32) * scale.reshape(bshape), scale))
        wq = self.add_init(b + "_quantized", q)
        ws = self.add_init(b + "_scale", scale)
        wz = self.add_init(b + "_zero_point", zp)
        aq, as_, az = self.dynamic_quant(a, nodes)
        base = node.name or node.output[0]
        acc, accf, sc = base + "_MatMulInteger", base + "_cast", base + "_scales_mul"
        nodes += [
            helper.make_node("MatMulInteger", [aq, wq, az, wz], [acc], base + "_quant"),
            helper.make_node("Cast", [acc], [accf], base + "_Cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [as_, ws], [sc], base + "_scales_mul"),
            helper.make_node("Mul", [accf, sc], [node.output[0]], base + "_output_scale_mul"),
        ]
        self.replaced["MatMul"] += 1

    def gather(self, node, nodes):
        from onnx import helper
        table, idx = node.input
        w = self.np.to_array(self.inits[table]).astype(np.float32)
        q, scale, zp = quantize_u8_asymmetric(w)
        self.checks.append((table, w, (q.astype(np.float32) - float(zp)) * scale, scale))
        tq = self.add_init(table + "_quantized", q)
        ts = self.add_init(table + "_scale", scale)
        tz = self.add_init(table + "_zero_point", zp)
        g = node.output[0] + "_quantized"
        nodes += [
            helper.make_node("Gather", [tq, idx], [g], (node.name or g) + "_quant",
                             axis=next((at.i for at in node.attribute if at.name == "axis"), 0)),
            helper.make_node("DequantizeLinear", [g, ts, tz], [node.output[0]],
                             node.output[0] + "_DequantizeLinear"),
        ]
        self.replaced["Gather"] += 1

    def run(self):
        nodes = []
        used = set()
        for node in self.model.graph.node:
            if node.op_type == "MatMul" and node.input[1] in self.inits:
                self.matmul(node, nodes)
                used.add(node.input[1])
            elif node.op_type == "Gather" and node.input[0] in self.inits and \
                    self.inits[node.input[0]].data_type == 1:  # float tables only
                self.gather(node, nodes)
                used.add(node.input[0])
            else:
                nodes.append(node)
        g = self.model.graph
        # the fp32 tables go unless something else still reads them
        still = {i for n in nodes for i in n.input}
        keep = [t for t in g.initializer if t.name not in used or t.name in still]
        del g.node[:]
        g.node.extend(nodes)
        del g.initializer[:]
        g.initializer.extend(keep + self.new_inits)
        return self.model


def verify(model, q):
    """The int8 graph against the fp32 one it came from: valid, nothing left behind,
    every table within half a quantization step of its fp32 values."""
    import onnx
    onnx.checker.check_model(model)
    inits = {t.name for t in model.graph.initializer}
    left = [n.name for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in inits]
    if left:
        sys.exit("export_onnx.py: weight MatMuls left in fp32: %s" % left)
    if q.replaced["MatMul"] == 0:
        sys.exit("export_onnx.py: no weight MatMul found to quantize")
    worst = 0.0
    for name, w, deq, scale in q.checks:
        err = np.abs(w - deq)
        step = np.broadcast_to(scale.reshape([1, -1]) if scale.ndim == 1 else scale, w.shape)
        # (1 + 1e-3): float32 rounding of w / scale; a wrong code is a whole step off
        if (err > 0.5 * step * (1 + 1e-3) + 1e-12).any():
            sys.exit("export_onnx.py: %s dequantizes more than half a step off" % name)
        worst = max(worst, float(err.max()))
    return worst


def quantize_file(src, dst, per_channel):
    import onnx
    model = onnx.load(src)
    q = Quantizer(model, per_channel)
    model = q.run()
    worst = verify(model, q)
    onnx.save(model, dst)
    print("int8: %d MatMul -> DynamicQuantizeLinear + MatMulInteger (weights int8 %s), "
          "%d Gather -> uint8 + DequantizeLinear; max |w - dequantized w| %.2e; %s (%.1f MiB, "
          "fp32 %.1f MiB)" %
          (q.replaced["MatMul"], "per channel" if per_channel else "per tensor",
           q.replaced["Gather"], worst, dst, os.path.getsize(dst) / 2**20,
           os.path.getsize(src) / 2**20))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", help="checkpoint directory to export")
    ap.add_argument("--out", help="the fp32 .onnx to write")
    ap.add_argument("--quantize", help="an fp32 .onnx of this script to quantize")
    ap.add_argument("--int8", help="also write the dynamically quantized model here")
    ap.add_argument("--per-tensor", action="store_true",
                    help="one weight scale per matrix (default: per output channel)")
    a = ap.parse_args()
    if a.quantize:
        if not a.int8:
            ap.error("--quantize needs --int8")
        src = a.quantize
    else:
        if not (a.model and a.out):
            ap.error("--model and --out are required (or --quantize FILE --int8 OUT)")
        export_fp32(a.model, a.out)
        src = a.out
    if a.int8:
        quantize_file(src, a.int8, not a.per_tensor)
    return 0


if __name__ == "__main__":
    sys.exit(main())
