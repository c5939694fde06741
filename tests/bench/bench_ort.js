// ONNX Runtime's side of bench_ort.sh: the exported discriminator (export_onnx.py)
// timed through onnxruntime-node on the inputs the engine and PyTorch get.
//
//   node bench_ort.js --onnx FILE --ids FILE [--threads 2] [--seconds 3] [--len 128]
//                     [--batches 1,8,32] [--mixed 17,128,45,...] [--dump DIR]
//                     [--optimized FILE]
//
// NODE_PATH must reach the onnxruntime-node install. --ids is the packed int32
// token file every side reads (a case takes its first T ids). A mixed-length batch
// is padded to its longest sequence with an attention mask, as users run it.
// Session: intra-op threads = --threads, one inter-op thread, sequential
// execution, all graph optimisations (ORT's defaults otherwise). Prints
//   load RSS_KB RSS_BEFORE_KB            (the process after and before creating the session)
//   case NAME SEQS TOKENS MS_BEST MS_MEDIAN TOKENS_PER_S CPU_MS_BEST
// (CPU_MS_BEST: the least process CPU time of a run, all threads summed, as
// bench_forward reports it: on a shared machine it does not grow while other
// processes hold the cores)
// and, with --dump, writes DIR/NAME.f32: the probabilities of the real tokens,
// packed, float32. --optimized FILE: ONNX Runtime writes the graph it runs
// (after its fusions) there.
"use strict";
const fs = require("fs");
const path = require("path");
const ort = require("onnxruntime-node");

function parseArgs(argv) {
  const a = { threads: 2, seconds: 3, len: 128, batches: "1,8,32", mixed: "", dump: "",
              optimized: "" };
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i].replace(/^--/, ""), v = argv[i + 1];
    if (!(k in a) && k !== "onnx" && k !== "ids") throw new Error("unknown option " + argv[i]);
    if (v === undefined) throw new Error("option " + argv[i] + " needs a value");
    a[k] = v;
  }
  if (!a.onnx || !a.ids) throw new Error("--onnx and --ids are required");
  return a;
}

function list(s) {
  return s.split(",").filter((x) => x).map((x) => parseInt(x, 10));
}

// Padded int64 tensors [B, S] for the packed ids of sequences of lengths lens.
function feeds(ids, lens) {
  const B = lens.length, S = Math.max(...lens);
  const id = new BigInt64Array(B * S), types = new BigInt64Array(B * S);
  const mask = new BigInt64Array(B * S);
  let t = 0;
  lens.forEach((n, b) => {
    for (let p = 0; p < n; p++, t++) {
      id[b * S + p] = BigInt(ids[t]);
      mask[b * S + p] = 1n;
    }
  });
  if (t > ids.length) throw new Error("the ids file holds fewer than " + t + " tokens");
  const dims = [B, S];
  return {
    ids: new ort.Tensor("int64", id, dims),
    types: new ort.Tensor("int64", types, dims),
    mask: new ort.Tensor("int64", mask, dims),
  };
}

function packed(out, lens) {
  const S = Math.max(...lens), T = lens.reduce((x, y) => x + y, 0);
  const r = new Float32Array(T);
  let t = 0;
  lens.forEach((n, b) => {
    for (let p = 0; p < n; p++) r[t++] = out[b * S + p];
  });
  return r;
}

async function benchCase(session, a, ids, name, lens) {
  const f = feeds(ids, lens);
  let out = await session.run(f); // warm-up
  const times = [];
  let cpuBest = Infinity;
  const start = performance.now();
  while (times.length < 3 || performance.now() - start < a.seconds * 1000) {
    const t0 = performance.now(), c0 = process.cpuUsage();
    out = await session.run(f);
    times.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpuBest = Math.min(cpuBest, (c.user + c.system) / 1000);
  }
  times.sort((x, y) => x - y);
  const T = lens.reduce((x, y) => x + y, 0);
  const best = times[0], med = times[times.length >> 1];
  console.log(`case ${name} ${lens.length} ${T} ${best.toFixed(3)} ${med.toFixed(3)} ` +
              `${(T / best * 1000).toFixed(1)} ${cpuBest.toFixed(3)}`);
  if (a.dump) {
    const p = packed(out.replaced.data, lens);
    fs.writeFileSync(path.join(a.dump, name + ".f32"), Buffer.from(p.buffer));
  }
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const raw = fs.readFileSync(a.ids);
  const ids = new Int32Array(raw.buffer, raw.byteOffset, raw.length >> 2);
  const rssBefore = process.memoryUsage().rss;
  const session = await ort.InferenceSession.create(a.onnx, {
    intraOpNumThreads: Number(a.threads),
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    ...(a.optimized ? { optimizedModelFilePath: a.optimized } : {}),
  });
  console.log(`load ${Math.round(process.memoryUsage().rss / 1024)} ${Math.round(rssBefore / 1024)}`);
  a.seconds = Number(a.seconds);
  const L = Number(a.len);
  for (const b of list(a.batches)) await benchCase(session, a, ids, `b${b}x${L}`, Array(b).fill(L));
  if (a.mixed) await benchCase(session, a, ids, "mixed", list(a.mixed));
}

main().catch((e) => {
  console.error("bench_ort.js: " + e.message);
  process.exit(1);
});
