"""electra-server throughput and latency for /score on an ELECTRA-Small-shaped
random model (12 layers, hidden 256, 4 heads, FFN 1024, embedding 128, vocab
30522): 1, 8, 32, 128 concurrent keep-alive clients (build/bench/
bench_server_client), short (10 tokens) and medium (60 tokens) texts, batching
on (defaults) vs off (--max-batch-size 1), next to the engine's own batched
throughput on the same inputs (build/bench/bench_server_engine) and the
server's RSS; then /score requests/s at 32 clients with --dtype int8 against fp32 (two
servers taking turns, BENCH_INT8_ROUNDS rounds of BENCH_SECONDS each). Prints Markdown
tables; a measurement, not a test."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
from server_lib import Server  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
CLIENT = os.path.join(ROOT, BUILD, "bench", "bench_server_client")
ENGINE = os.path.join(ROOT, BUILD, "bench", "bench_server_engine")
SECONDS = float(os.environ.get("BENCH_SECONDS", "4"))
CONNS = [int(x) for x in os.environ.get("BENCH_CONNS", "1,8,32,128").split(",")]
VOCAB = "/work/shared/data/vocab/bert-base-uncased-vocab.txt"
if not os.path.exists(VOCAB):
    VOCAB = os.path.join(ROOT, "..", "shared", "data", "vocab", "bert-base-uncased-vocab.txt")

# one word piece each in bert-base-uncased: 8 + [CLS] + [SEP] = 10, 58 + 2 = 60
SHORT = "the cat sat on the mat with a"
MEDIUM = ("the old man walked down the long road to the small town where he had lived for "
          "many years and he saw that the people were still there and the houses were the "
          "same as they had been when he was a young boy in the summer and the winter of "
          "his first year at the new school")


def model_dir():
    cache = os.path.join(tempfile.gettempdir(), "electra-bench-server")
    d = os.path.join(cache, "small-pretraining")
    if os.path.exists(os.path.join(d, "model.safetensors")):
        return d
    os.makedirs(cache, exist_ok=True)
    vocab = VOCAB
    if not os.path.exists(vocab):  # a generated 30522-line vocabulary of the same size
        vocab = os.path.join(cache, "vocab.txt")
        with open(vocab, "w") as f:
            words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + \
                sorted(set((SHORT + " " + MEDIUM).split()))
            words += ["w%d" % i for i in range(30522 - len(words))]
            f.write("\n".join(words) + "\n")
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "reference",
                                                     "make_checkpoint.py"),
                    "--arch", "pretraining", "--out", d, "--hidden", "256", "--layers", "12",
                    "--heads", "4", "--intermediate", "1024", "--embedding", "128",
                    "--max-position", "512", "--vocab", vocab, "--seed", "7"], check=True,
                   stdout=subprocess.DEVNULL)
    return d


def engine(d, text, batch):
    r = subprocess.run([ENGINE, "--model", d, "--text", text, "--batch", str(batch),
                        "--seconds", "3"], capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def client(port, pid, conns, text):
    body = json.dumps({"text": text})
    r = subprocess.run([CLIENT, "--port", str(port), "--conns", str(conns), "--body", body,
                        "--warmup", "1", "--seconds", str(SECONDS), "--pid", str(pid)],
                       capture_output=True, text=True)
    if r.returncode:
        print("client failed: %s" % r.stderr, file=sys.stderr)
    return json.loads(r.stdout)


def main():
    d = model_dir()
    print("machine: %d CPUs, load average %.2f %.2f %.2f at start" %
          ((os.cpu_count() or 0,) + os.getloadavg()))
    size_mb = os.path.getsize(os.path.join(d, "model.safetensors")) / 2**20
    print("model: %s (%.1f MB safetensors), vocab %s" % (d, size_mb, os.path.basename(VOCAB)))
    eng = {}
    for name, text in (("short", SHORT), ("medium", MEDIUM)):
        for b in (1, 8, 32, 64):
            eng[(name, b)] = engine(d, text, b)
    print("\nengine alone (bench_server_engine, el_run_replaced on identical sequences):\n")
    print("| text | tokens | batch | sequences/s | batch latency p50 ms |")
    print("|---|---|---|---|---|")
    for (name, b), e in eng.items():
        print("| %s | %d | %d | %.1f | %.2f |" % (name, e["tokens_per_seq"], b, e["seq_per_s"],
                                               e["batch_p50_ms"]))
    res = {}
    peak_rss = {}
    for mode, args in (("batching", []), ("no batching", ["--max-batch-size", "1"])):
        srv = Server([("disc", d)], args,
                     workdir=tempfile.mkdtemp(prefix="electra-bench-")).start()
        for name, text in (("short", SHORT), ("medium", MEDIUM)):
            for c in CONNS:
                res[(mode, name, c)] = client(srv.port, srv.proc.pid, c, text)
        with open("/proc/%d/status" % srv.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    peak_rss[mode] = int(line.split()[1]) / 1024
        srv.stop()
    print("\nserver (bench_server_client: closed-loop keep-alive clients, %.0f s each after 1 s "
          "warm-up):\n" % SECONDS)
    print("| text | clients | batching req/s | p50 ms | p95 ms | p99 ms | no batching req/s | "
          "p50 ms | p95 ms | p99 ms | batching gain | vs engine batch 32 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in ("short", "medium"):
        for c in CONNS:
            a, b = res[("batching", name, c)], res[("no batching", name, c)]
            e32 = eng[(name, 32)]["seq_per_s"]
            def lat(r):
                if not r["requests"]:
                    return "n/a | n/a | n/a"
                return "%.2f | %.2f | %.2f" % (r["p50_ms"], r["p95_ms"], r["p99_ms"])
            gain = "%.2fx" % (a["rps"] / b["rps"]) if b["rps"] > 0 else "n/a"
            print("| %s | %d | %.1f | %s | %.1f | %s | %s | %.0f%% |" %
                  (name, c, a["rps"], lat(a), b["rps"], lat(b), gain, 100 * a["rps"] / e32))
    errors = sum(r["errors"] for r in res.values())
    print("\nnon-200 answers: %d; load average %.2f %.2f %.2f at the end" %
          ((errors,) + os.getloadavg()))
    for mode, mb in peak_rss.items():
        print("server peak RSS (%s): %.1f MB = model file %.1f MB + %.1f MB" %
              (mode, mb, size_mb, mb - size_mb))
    for name in ("short", "medium") if 1 in CONNS else ():
        e1 = eng[(name, 1)]["batch_p50_ms"]
        s1 = res[("batching", name, 1)]["p50_ms"]
        print("1 client, %s: server p50 %.2f ms vs engine batch-1 latency %.2f ms (+%.2f ms)"
              % (name, s1, e1, s1 - e1))
    int8_vs_fp32(d)


def int8_vs_fp32(d, conns=32):
    """/score req/s at `conns` clients, fp32 and --dtype int8 servers taking turns."""
    rounds = int(os.environ.get("BENCH_INT8_ROUNDS", "3"))
    servers = {}
    for dt in ("fp32", "int8"):
        try:
            servers[dt] = Server([("disc", d)], ["--dtype", dt],
                                 workdir=tempfile.mkdtemp(prefix="electra-bench-")).start()
        except RuntimeError as e:
            print("\nint8 vs fp32: SKIP (%s)" % str(e).strip().splitlines()[-1])
            for srv in servers.values():
                srv.stop()
            return
    best = {}
    for _ in range(rounds):
        for name, text in (("short", SHORT), ("medium", MEDIUM)):
            for dt, srv in servers.items():
                r = client(srv.port, srv.proc.pid, conns, text)
                k = (name, dt)
                if k not in best or r["rps"] > best[k]["rps"]:
                    best[k] = r
    rss = {}
    for dt, srv in servers.items():
        with open("/proc/%d/status" % srv.proc.pid) as f:
            rss[dt] = [int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:")][0]
        srv.stop()
    print("\n/score at %d clients, batching on, fp32 vs --dtype int8 (best of %d rounds):\n"
          % (conns, rounds))
    print("| text | fp32 req/s | int8 req/s | int8/fp32 | fp32 p50 ms | int8 p50 ms |")
    print("|---|---|---|---|---|---|")
    for name in ("short", "medium"):
        f, q = best[(name, "fp32")], best[(name, "int8")]
        print("| %s | %.1f | %.1f | %.2fx | %.1f | %.1f |" %
              (name, f["rps"], q["rps"], q["rps"] / f["rps"] if f["rps"] else float("nan"),
               f["p50_ms"], q["p50_ms"]))
    print("server RSS after the runs: fp32 %.1f MB, int8 %.1f MB" % (rss["fp32"], rss["int8"]))


if __name__ == "__main__":
    main()
