"""ELECTRA-large-shaped discriminator: the engine (fp32, int8) beside ONNX Runtime (fp32,
dynamic int8) on one sentence, and electra-server's /score on it. Run by
tests/bench/bench_large.sh (which installs ONNX Runtime and sets ORT_NODE_PATH); prints
Markdown tables, a measurement, not a test.

    bench_large.py WORKDIR
"""
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
sys.path.insert(0, HERE)
from bench_server import MEDIUM  # noqa: E402
from server_lib import Server  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")
FORWARD = os.path.join(ROOT, BUILD, "bench", "bench_forward")
CLIENT = os.path.join(ROOT, BUILD, "bench", "bench_server_client")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
SRV_SECONDS = [float(x) for x in os.environ.get("BENCH_SERVER_SECONDS", "10,60").split(",")]
THREADS = os.environ.get("BENCH_THREADS", "2")
NODE_PATH = os.environ.get("ORT_NODE_PATH", "")
CACHE = os.environ.get("BENCH_LARGE_DIR",
                       os.path.join(tempfile.gettempdir(), "electra-bench-large"))
VOCAB = os.path.join(ROOT, "..", "shared", "data", "vocab", "bert-base-uncased-vocab.txt")
# the `large` preset (train/pretrain/pretrain_opts.c): hidden 1024, 24 layers, 16 heads,
# FFN 4096, embedding 1024
SHAPE = ["--hidden", "1024", "--layers", "24", "--heads", "16", "--intermediate", "4096",
         "--embedding", "1024", "--max-position", "512", "--std", "0.02", "--seed", "1"]
# 40 words, each one word piece in bert-base-uncased: 42 tokens with [CLS] and [SEP]
SENTENCE = " ".join(MEDIUM.split()[:40])
BATCH = 32


def log(msg):
    print(msg, flush=True)


def newer(a, b):
    return os.path.exists(a) and os.path.getmtime(a) >= os.path.getmtime(b)


def checkpoint():
    """The random large discriminator, written once into the cache."""
    d = os.path.join(CACHE, "large")
    st = os.path.join(d, "model.safetensors")
    if os.path.exists(st) and os.path.exists(os.path.join(d, "vocab.txt")):
        return d
    os.makedirs(CACHE, exist_ok=True)
    vocab = VOCAB
    if not os.path.exists(vocab):  # a generated vocabulary of the same size
        vocab = os.path.join(CACHE, "vocab.txt")
        words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + sorted(set(MEDIUM.split()))
        words += ["w%d" % i for i in range(30522 - len(words))]
        with open(vocab, "w") as f:
            f.write("\n".join(words) + "\n")
    log("writing the random large checkpoint into %s" % d)
    subprocess.run([PYTHON, os.path.join(ROOT, "tests", "reference", "make_checkpoint.py"),
                    "--arch", "pretraining", "--out", d, "--vocab", vocab] + SHAPE,
                   check=True, stdout=subprocess.DEVNULL)
    return d


def onnx_files(d):
    """(fp32, int8) ONNX exports of d, cached beside it; (None, None) and the reason
    when ONNX Runtime or the exporter is missing."""
    if not NODE_PATH:
        return None, None, os.environ.get("ORT_WHY", "no ONNX Runtime")
    st = os.path.join(d, "model.safetensors")
    f32, i8 = os.path.join(CACHE, "large.onnx"), os.path.join(CACHE, "large8.onnx")
    if newer(f32, st) and newer(i8, f32):
        return f32, i8, ""
    log("exporting to ONNX (fp32 and dynamic int8) into %s" % CACHE)
    r = subprocess.run([PYTHON, os.path.join(HERE, "export_onnx.py"), "--model", d, "--out",
                        f32, "--int8", i8], capture_output=True, text=True)
    if r.returncode:
        tail = [x for x in r.stderr.splitlines() if "Warning" not in x][-1:]
        return None, None, "export_onnx.py failed: %s" % " ".join(tail)
    log(r.stdout.strip())
    return f32, i8, ""


def sentence_ids(d):
    vocab = {w.rstrip("\n"): i for i, w in enumerate(open(os.path.join(d, "vocab.txt")))}
    missing = [w for w in SENTENCE.split() if w not in vocab]
    if missing:
        sys.exit("bench_large.py: not single word pieces in %s/vocab.txt: %s" % (d, missing))
    return [vocab["[CLS]"]] + [vocab[w] for w in SENTENCE.split()] + [vocab["[SEP]"]]


def cases(text):
    """{case: (best ms, least CPU ms of a run)} and the load line, from bench_forward
    (CPU ms: field 10) or bench_ort.js (field 7) output."""
    out, load = {}, None
    for line in text.splitlines():
        w = line.split()
        if w and w[0] == "case":
            out[w[1]] = (float(w[4]), float(w[10] if len(w) > 10 else w[7]))
        elif w and w[0] == "load":
            load = w[1:]
    return out, load


def direct(d, onnx32, onnx8, ids_file, n_tok, work):
    """Best ms per (side, case) over ROUNDS alternating rounds, and the dump dirs."""
    common = ["--threads", THREADS, "--seconds", str(SECONDS), "--len", str(n_tok),
              "--batches", "1,%d" % BATCH, "--ids", ids_file]
    sides = [("engine fp32", [FORWARD, "--model", d, "--dtype", "fp32"]),
             ("engine int8", [FORWARD, "--model", d, "--dtype", "int8"])]
    if onnx32:
        node = ["node", os.path.join(HERE, "bench_ort.js")]
        sides.insert(1, ("ORT fp32", node + ["--onnx", onnx32]))
        sides.append(("ORT int8", node + ["--onnx", onnx8]))
    best, loads = {}, {}
    env = dict(os.environ, NODE_PATH=NODE_PATH)
    for r in range(ROUNDS):
        for name, cmd in sides:
            dump = os.path.join(work, name.replace(" ", "_"))
            os.makedirs(dump, exist_ok=True)
            res = subprocess.run(cmd + common + ["--dump", dump], capture_output=True,
                                 text=True, env=env)
            if res.returncode:
                log("%s failed: %s" % (name, res.stderr.strip()[-300:]))
                continue
            got, load = cases(res.stdout)
            if load:
                loads[name] = load
            for c, (ms, cpu_ms) in got.items():
                b = best.get((name, c), (1e30, 1e30))
                best[(name, c)] = (min(ms, b[0]), min(cpu_ms, b[1]))
            log("  round %d %s: %s" % (r + 1, name, ", ".join(
                "%s %.1f ms (CPU %.1f ms)" % (c, v[0], v[1]) for c, v in got.items())))
    return [s[0] for s in sides], best, loads


def load_rss(d):
    """MiB a loaded model adds to the process, per dtype (bench_forward --load-only)."""
    out = {}
    for dt in ("fp32", "int8"):
        r = subprocess.run([FORWARD, "--load-only", d, "--dtype", dt], capture_output=True,
                           text=True, check=True)
        w = r.stdout.split()
        out[dt] = (int(w[1]) - int(w[5])) / 1024
    return out


def cpu_s(pid):
    """user + system CPU seconds of a process so far (all threads)"""
    with open("/proc/%d/stat" % pid) as f:
        w = f.read().rsplit(")", 1)[1].split()
    return (int(w[11]) + int(w[12])) / os.sysconf("SC_CLK_TCK")


def client(srv, conns, seconds):
    """bench_server_client's answer, plus the server's CPU ms per answered request (robust
    where other jobs hold the cores: it does not grow while the server waits for them)"""
    c0 = cpu_s(srv.proc.pid)
    r = subprocess.run([CLIENT, "--port", str(srv.port), "--conns", str(conns), "--body",
                        json.dumps({"text": SENTENCE}), "--warmup", "1", "--seconds",
                        str(seconds), "--pid", str(srv.proc.pid)],
                       capture_output=True, text=True)
    if r.returncode:
        log("client failed: %s" % r.stderr.strip())
    res = json.loads(r.stdout)
    # the warm-up second's requests are not counted: an upper bound, close for long runs
    res["cpu_ms_per_req"] = ((cpu_s(srv.proc.pid) - c0) * 1e3 / res["requests"]
                             if res["requests"] else float("nan"))
    return res


def status_mb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def server(d):
    """/score at 1 and 32 clients, fp32 and int8 servers taking turns; best of ROUNDS."""
    servers, rss = {}, {}
    for dt in ("fp32", "int8"):
        t0 = time.time()
        servers[dt] = Server([("disc", d)], ["--dtype", dt],
                             workdir=tempfile.mkdtemp(prefix="electra-bench-")).start()
        rss[dt] = [status_mb(servers[dt].proc.pid, "VmRSS"), time.time() - t0]
    best = {}
    for r in range(ROUNDS):
        for conns, secs in ((1, SRV_SECONDS[0]), (BATCH, SRV_SECONDS[-1])):
            for dt, srv in servers.items():
                res = client(srv, conns, secs)
                k = (dt, conns)
                log("  round %d /score %s %d clients: %.2f req/s, p50 %.1f ms, server CPU "
                    "%.1f ms per request" % (r + 1, dt, conns, res["rps"],
                                             res.get("p50_ms", float("nan")),
                                             res["cpu_ms_per_req"]))
                if res["errors"]:
                    log("  (%d non-200 answers)" % res["errors"])
                if k not in best or res["rps"] > best[k]["rps"]:
                    best[k] = dict(res, cpu_ms_per_req=min(
                        res["cpu_ms_per_req"], best.get(k, res)["cpu_ms_per_req"]))
                else:
                    best[k]["cpu_ms_per_req"] = min(best[k]["cpu_ms_per_req"],
                                                    res["cpu_ms_per_req"])
    for dt, srv in servers.items():
        rss[dt].append(status_mb(srv.proc.pid, "VmHWM"))
        srv.stop()
    return best, rss


def maxdiff(work, a, b, case):
    pa = os.path.join(work, a.replace(" ", "_"), case + ".f32")
    pb = os.path.join(work, b.replace(" ", "_"), case + ".f32")
    if not (os.path.exists(pa) and os.path.exists(pb)):
        return None
    x, y = np.fromfile(pa, dtype=np.float32), np.fromfile(pb, dtype=np.float32)
    return float(np.abs(x - y).max()) if x.size == y.size else None


def worst(work, a, b, names):
    """max |Δ| of a's and b's probabilities over the cases, "-" when a is b or missing"""
    dd = [maxdiff(work, a, b, c) for c in names] if a != b else []
    dd = [x for x in dd if x is not None]
    return "%.1e" % max(dd) if dd else "-"


def cpu():
    model, flags = "?", set()
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name") and model == "?":
            model = line.split(":", 1)[1].strip()
        if line.startswith("flags") and not flags:
            flags = set(line.split(":", 1)[1].split())
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx_vnni") if f in flags]
    return "%s (%s)" % (model, " ".join(isa))


def main():
    work = sys.argv[1]
    d = checkpoint()
    onnx32, onnx8, why = onnx_files(d)
    ids = sentence_ids(d)
    ids_file = os.path.join(work, "ids.i32")
    np.array(ids * BATCH, dtype=np.int32).tofile(ids_file)
    n = len(ids)
    log("CPU: %s, %d CPUs; load average %.2f %.2f %.2f at start" %
        ((cpu(), os.cpu_count() or 0) + os.getloadavg()))
    log("model: %s (%.0f MiB safetensors); sentence: %d words, %d tokens" %
        (d, os.path.getsize(os.path.join(d, "model.safetensors")) / 2**20,
         len(SENTENCE.split()), n))
    if not onnx32:
        log("ONNX Runtime: not measured: %s" % why)
    sides, best, loads = direct(d, onnx32, onnx8, ids_file, n, work)
    mem = load_rss(d)
    srv, srss = server(d)
    log("load average at the end: %.2f %.2f %.2f" % os.getloadavg())

    b1, b32 = "b1x%d" % n, "b%dx%d" % (BATCH, n)
    print()
    print("ELECTRA-large-shaped discriminator (24 layers, hidden 1024, 16 heads, FFN 4096), "
          "random weights, %s threads, %d alternating rounds, best run; one %d-word sentence "
          "(%d tokens), batch 1 and %d copies at batch %d" %
          (THREADS, ROUNDS, len(SENTENCE.split()), n, BATCH, BATCH))
    print()
    print("| side | batch 1 ms | batch %d ms | batch %d sentences/s | CPU ms b1 / b%d "
          "| vs ORT same dtype, wall b1 / b%d | in CPU time b1 / b%d "
          "| |Δ| vs engine fp32 | |Δ| vs own fp32 |" % (BATCH, BATCH, BATCH, BATCH, BATCH))
    print("|---|---|---|---|---|---|---|---|---|")
    for s in sides:
        m1, m32 = best.get((s, b1)), best.get((s, b32))
        peer = "ORT " + s.split()[-1]
        r = rc = "-"
        if not s.startswith("ORT") and (peer, b1) in best and (peer, b32) in best and m1 and m32:
            p1, p32 = best[(peer, b1)], best[(peer, b32)]
            r = "%.2fx / %.2fx" % (p1[0] / m1[0], p32[0] / m32[0])
            rc = "%.2fx / %.2fx" % (p1[1] / m1[1], p32[1] / m32[1])
        own = s.replace("int8", "fp32")
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" %
              (s, "%.1f" % m1[0] if m1 else "-", "%.0f" % m32[0] if m32 else "-",
               "%.1f" % (BATCH * 1000 / m32[0]) if m32 else "-",
               "%.0f / %.0f" % (m1[1], m32[1]) if m1 and m32 else "-", r, rc,
               worst(work, s, "engine fp32", (b1, b32)), worst(work, s, own, (b1, b32))))
    print()
    print("/score through electra-server (`--dtype fp32|int8`, default batching; fp32 and int8 "
          "servers taking turns, best of %d rounds; 1 client %.0f s, %d clients %.0f s):" %
          (ROUNDS, SRV_SECONDS[0], BATCH, SRV_SECONDS[-1]))
    print()
    print("| dtype | 1 client p50 / p95 ms | server CPU ms per request, 1 client | %d clients "
          "req/s | %d clients p50 ms | server CPU ms per request, %d clients | server RSS "
          "loaded MB | peak RSS MB | load s |" % (BATCH, BATCH, BATCH))
    print("|---|---|---|---|---|---|---|---|---|")
    for dt in ("fp32", "int8"):
        a, b = srv[(dt, 1)], srv[(dt, BATCH)]
        print("| %s | %.1f / %.1f | %.1f | %.2f | %.0f | %.1f | %.0f | %.0f | %.0f |" %
              (dt, a["p50_ms"], a["p95_ms"], a["cpu_ms_per_req"], b["rps"], b["p50_ms"],
               b["cpu_ms_per_req"], srss[dt][0], srss[dt][2], srss[dt][1]))
    print()
    ort_mem = ""
    for s in ("ORT fp32", "ORT int8"):
        if s in loads:
            ort_mem += ", %s %.0f MiB" % (s, (int(loads[s][0]) - int(loads[s][1])) / 1024)
    print("Resident memory a loaded model adds: engine fp32 %.0f MiB, int8 %.0f MiB (%.0f %% of "
          "fp32)%s" % (mem["fp32"], mem["int8"], 100 * mem["int8"] / mem["fp32"], ort_mem))
    lat = srv[("int8", 1)]["p50_ms"]
    ratio = mem["int8"] / mem["fp32"]
    print("Targets: int8 /score one 40-word sentence <= 100 ms: p50 %.1f ms %s; "
          "int8 loaded <= 40 %% of fp32: %.0f %% %s" %
          (lat, "met" if lat <= 100 else "MISSED", 100 * ratio,
           "met" if ratio <= 0.4 else "MISSED"))


if __name__ == "__main__":
    main()
