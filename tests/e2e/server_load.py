"""electra-server under load and through its lifecycle: a burst beyond
--max-queue (429 + Retry-After, every accepted request answered), request
deadlines (504), SIGTERM under load (every request sent before the signal
answered, exit 0), SIGHUP under load (no failed request; a failed reload keeps
the old models), models loaded before listening, API key, CORS, --healthcheck,
environment and --config, JSON logs."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import scratch, BIN, SLOW, BIGGER, SMALL, WRAPPER, Server, done, make_models, ok  # noqa: E402

work = scratch("electra-e2e-load-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "slow": ["--arch", "pretraining", "--seed", "2"] + BIGGER,
    "cls": ["--arch", "cls", "--num-labels", "2", "--seed", "3"] + SMALL,
})
# ~450 pieces; shorter under valgrind, where every forward pass is ~50x slower
LONG = "the quick brown fox jumps over the lazy dog " * (50 if SLOW == 1 else 6)
TIMEOUT = str(30 * SLOW)  # the default --request-timeout, stretched under valgrind


def hammer(srv, n_threads, until, body, path="/score", keepalive=True, log=None):
    """Threads send requests until until() is true; returns [(t_sent, status|exc)]."""
    out = []
    lock = threading.Lock()

    def run():
        c = None
        while not until():
            t = time.time()
            try:
                if c is None or not keepalive:
                    c = srv.conn(timeout=30)
                st, h, _ = srv.request("POST", path, body, conn=c)
                res = st
                if h.get("connection", "").lower() == "close" or not keepalive:
                    c.close()
                    c = None
            except Exception as e:  # noqa: BLE001
                res = repr(e)
                if c is not None:
                    c.close()
                c = None
            with lock:
                out.append((t, res))
    ths = [threading.Thread(target=run) for _ in range(n_threads)]
    for t in ths:
        t.start()
    return ths, out


# ---- overload: burst beyond --max-queue
srv = Server([("slow", M["slow"])], ["--max-queue", "4", "--max-batch-size", "1",
                                     "--http-threads", "4", "--request-timeout", TIMEOUT],
             workdir=work,
             log_name="overload.log").start()
results = []
lock = threading.Lock()


def one(barrier=None):
    try:
        if barrier:  # every request sent at once: a backlog however fast the server is
            barrier.wait(timeout=30)
        st, h, j = srv.post("/score", {"text": LONG, "truncate": True}, timeout=60)
        with lock:
            results.append((st, h.get("retry-after"), j and j.get("error", {}).get("type")))
    except Exception as e:  # noqa: BLE001
        with lock:
            results.append((repr(e), None, None))


ths = [threading.Thread(target=one) for _ in range(40)]
for t in ths:
    t.start()
for t in ths:
    t.join()
n200 = sum(1 for r in results if r[0] == 200)
n429 = [r for r in results if r[0] == 429]
other = [r for r in results if r[0] not in (200, 429)]
ok(len(results) == 40 and not other, "burst of 40 with --max-queue 4: every request answered "
   "200 or 429 (%d ok, %d overloaded)" % (n200, len(n429)), other[:5])
ok(len(n429) > 0 and all(r[1] == "1" and r[2] == "overloaded" for r in n429),
   "429s carry Retry-After and type overloaded")
ok(n200 >= 4, "accepted requests were answered (%d)" % n200)
rc = srv.stop()
ok(rc == 0, "overload server exits 0")

# ---- request deadline: 504 timeout for requests stuck in the queue
srv = Server([("slow", M["slow"])], ["--max-batch-size", "1", "--request-timeout", "0.05"],
             workdir=work, log_name="timeout.log").start()
results = []
start = threading.Barrier(64)
ths = [threading.Thread(target=one, args=(start,)) for _ in range(64)]
for t in ths:
    t.start()
for t in ths:
    t.join()
n504 = [r for r in results if r[0] == 504]
ok(n504 and all(r[2] == "timeout" for r in n504) and
   all(r[0] in (200, 504) for r in results),
   "--request-timeout 0.05 with a backlog: 504 timeout for those that waited (%d of %d), "
   "the rest 200" % (len(n504), len(results)), results[:5])
srv.stop()

# ---- SIGTERM under load: everything sent before the signal is answered, exit 0
srv = Server([("slow", M["slow"])], ["--max-batch-size", "8", "--drain-timeout",
                                     str(20 * SLOW), "--request-timeout", TIMEOUT],
             workdir=work, log_name="sigterm.log").start()
stop = [False]
ths, out = hammer(srv, 16, lambda: stop[0], {"text": LONG[:800], "truncate": True})
time.sleep(1.0 * SLOW)
t_sig = time.time()
srv.signal(signal.SIGTERM)
t0 = time.time()
rc = srv.proc.wait(timeout=60 * SLOW)
t_exit = time.time()
stop[0] = True
for t in ths:
    t.join()
# a request sent in the last 0.1 s before the signal may still be on the wire
# when draining starts (then 503 is right); anything older was accepted
before = [r for t, r in out if t < t_sig - 0.1]
after = [r for t, r in out if t >= t_sig - 0.1]
bad_before = [r for r in before if r != 200]
ok(rc == 0, "SIGTERM under load: exit status 0 after %.2f s" % (t_exit - t0), srv.log()[-1500:])
ok(len(before) > 16 and not bad_before,
   "SIGTERM under load: all %d requests sent before the signal (-0.1 s) answered 200" % len(before),
   bad_before[:5])
ok(all(r in (200, 503) or isinstance(r, str) for r in after),
   "after the signal: 200 (accepted), 503 (draining) or refused connection only (%d)" % len(after),
   [r for r in after if r not in (200, 503)][:3])
log = srv.log().decode(errors="replace")
ok("draining" in log and "drained" in log, "drain logged")

# ---- SIGHUP under load: no failed request; a failed reload keeps the old models
mdir = os.path.join(work, "reloadable")
shutil.copytree(M["disc"], mdir)
srv = Server([("disc", mdir), ("cls", M["cls"])], ["--max-batch-size", "16"], workdir=work,
             log_name="sighup.log").start()
stop = [False]
ths, out = hammer(srv, 8, lambda: stop[0], {"text": "reload me please"})
for i in range(3):
    time.sleep(0.5 * SLOW)
    srv.signal(signal.SIGHUP)
    deadline = time.time() + 20 * SLOW
    while time.time() < deadline and srv.log().count(b"reload done") < i + 1:
        time.sleep(0.05)
time.sleep(0.3 * SLOW)
# a reload that fails: the safetensors file goes missing
os.rename(os.path.join(mdir, "model.safetensors"), os.path.join(mdir, "moved.safetensors"))
srv.signal(signal.SIGHUP)
deadline = time.time() + 20 * SLOW
while time.time() < deadline and b"reload failed" not in srv.log():
    time.sleep(0.05)
time.sleep(0.3 * SLOW)
stop[0] = True
for t in ths:
    t.join()
os.rename(os.path.join(mdir, "moved.safetensors"), os.path.join(mdir, "model.safetensors"))
bad = [r for _, r in out if r != 200]
log = srv.log().decode(errors="replace")
ok(log.count("reload done") == 3, "three SIGHUP reloads completed", log[-1500:])
ok(len(out) > 50 and not bad, "SIGHUP under load: %d requests, none failed" % len(out), bad[:5])
ok("reload failed" in log and "moved.safetensors" not in log or "reload failed" in log,
   "a failed reload is logged with its reason", log[-800:])
st, _, j = srv.post("/score", {"text": "still the old model"})
st2, _, met = srv.get("/metrics")
met = met.decode()
ok(st == 200 and 'electra_reloads_total{result="ok"} 3' in met and
   'electra_reloads_total{result="failed"} 1' in met,
   "after the failed reload the old models still answer; reloads counted")
ok(srv.get("/ready")[0] == 200, "still ready after a failed reload")
rc = srv.stop()
ok(rc == 0, "exit 0", "exit status %r; log: %s" % (rc, srv.log()[-1500:].decode(errors="replace")))

# ---- models load before the server listens (config.json is a FIFO: the load's open()
# blocks): nothing listens meanwhile; a model failing to load ends the start-up, exit 1
slowdir = os.path.join(work, "slowload")
shutil.copytree(M["disc"], slowdir)
os.remove(os.path.join(slowdir, "config.json"))
os.mkfifo(os.path.join(slowdir, "config.json"))
slow_log = os.path.join(work, "loading.log")
with open(slow_log, "wb") as lf:
    proc = subprocess.Popen(list(WRAPPER) + [BIN, "--host", "127.0.0.1", "--port", "0",
                                             "--model", "disc=" + slowdir],
                            stdout=lf, stderr=subprocess.STDOUT)
time.sleep(0.5 * SLOW)
ok(proc.poll() is None and b"listening" not in open(slow_log, "rb").read(),
   "while a model loads: not listening yet (every model is checked first)")
# opening the FIFO's other end lets the loader's open() return; it then refuses
# a config.json that is not a regular file: a failed start-up load exits 1
fd = os.open(os.path.join(slowdir, "config.json"), os.O_WRONLY)
os.close(fd)
try:
    rc = proc.wait(timeout=20 * SLOW)
except subprocess.TimeoutExpired:
    proc.kill()
    rc = None
text = open(slow_log, "rb").read()
ok(rc == 1 and b"config.json: not a regular file" in text and b"listening" not in text,
   "a model failing to load at start-up: logged, exit 1, never listened", text[-400:])

# ---- systemd notifications on a fake $NOTIFY_SOCKET
sock_path = os.path.join(work, "notify.sock")
ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
ns.bind(sock_path)
ns.settimeout(0.2)
srv = Server([("disc", M["disc"])], workdir=work, log_name="notify.log",
             env={"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "200000"}).start()
msgs = []


def drain_notify(until, timeout):
    deadline = time.time() + timeout * SLOW
    while time.time() < deadline and not until():
        try:
            msgs.append(ns.recv(4096).decode())
        except socket.timeout:
            pass


drain_notify(lambda: any("READY=1" in m for m in msgs) and
             sum("WATCHDOG=1" in m for m in msgs) >= 2, 5)
ok(any("READY=1" in m for m in msgs), "sd_notify: READY=1 once loaded and warm", msgs[:5])
ok(sum("WATCHDOG=1" in m for m in msgs) >= 2, "sd_notify: WATCHDOG=1 every WATCHDOG_USEC/2")
n0 = len(msgs)
srv.signal(signal.SIGHUP)
drain_notify(lambda: any("READY=1" in m for m in msgs[n0 + 1:]), 10)
later = msgs[n0:]
ok(any("RELOADING=1" in m for m in later) and
   [i for i, m in enumerate(later) if "RELOADING=1" in m][0] <
   [i for i, m in enumerate(later) if "READY=1" in m][-1],
   "sd_notify: RELOADING=1 then READY=1 around SIGHUP", later[:6])
srv.signal(signal.SIGTERM)
drain_notify(lambda: any("STOPPING=1" in m for m in msgs), 10)
ok(any("STOPPING=1" in m for m in msgs), "sd_notify: STOPPING=1 on SIGTERM")
srv.stop()
ns.close()

# ---- API key, CORS, JSON logs, environment, healthcheck
keyfile = os.path.join(work, "key")
with open(keyfile, "w") as f:
    f.write("s3cret-key\n")
cfgfile = os.path.join(work, "config.json")
with open(cfgfile, "w") as f:
    json.dump({"models": {"cls": M["cls"]}, "max_inputs": 3, "cors_origin": ["http://ok.example"]},
              f)
srv = Server([("disc", M["disc"])], ["--api-key-file", keyfile, "--log-format", "json",
                                     "--config", cfgfile],
             env={"ELECTRA_MAX_INPUTS": "2"}, workdir=work, log_name="auth.log")
srv.start(wait_ready=False)
srv.wait_ready()
auth = {"Authorization": "Bearer s3cret-key"}
st, _, j = srv.post("/score", {"text": "no key"})
ok(st == 401 and j["error"]["type"] == "unauthorized", "no key: 401 unauthorized")
st, _, j = srv.post("/score", {"text": "bad key"}, headers={"Authorization": "Bearer s3cret-kez"})
ok(st == 401, "wrong key: 401")
st, _, j = srv.post("/score", {"text": "short key"}, headers={"Authorization": "Bearer s3cret"})
ok(st == 401, "prefix of the key: 401")
st, _, j = srv.post("/score", {"text": "good key"}, headers=auth)
ok(st == 200, "right key: 200")
ok(all(srv.get(p)[0] == 200 for p in ("/health", "/ready", "/metrics", "/v2/health/live")),
   "/health, /ready, /metrics stay open")
ok(srv.get("/info")[0] == 401, "/info needs the key")
st, _, j = srv.post("/score", {"texts": ["a", "b", "c"]}, headers=auth)
ok(st == 422, "ELECTRA_MAX_INPUTS=2 wins over the config file's 3")
st, _, j = srv.post("/classify", {"text": "model from --config"}, headers=auth)
ok(st == 200 and j["model"] == "cls", "--config adds models next to --model")
st, h, _ = srv.request("POST", "/score", {"text": "cors"},
                       headers=dict(auth, Origin="http://ok.example"))
ok(h.get("access-control-allow-origin") == "http://ok.example", "CORS: allowed origin echoed")
st, h, _ = srv.request("POST", "/score", {"text": "cors"},
                       headers=dict(auth, Origin="http://evil.example"))
ok("access-control-allow-origin" not in h, "CORS: other origins get no allow header")
st, h, _ = srv.request("OPTIONS", "/score", headers={"Origin": "http://ok.example",
                                                     "Access-Control-Request-Method": "POST"})
ok(st == 204 and "POST" in h.get("access-control-allow-methods", "") and
   "Authorization" in h.get("access-control-allow-headers", ""), "CORS preflight: 204 with allow lists")
hc = subprocess.run(WRAPPER + [BIN, "--healthcheck", "--port", str(srv.port)])
ok(hc.returncode == 0, "--healthcheck against a live server: exit 0")
own = [line for line in srv.log().decode().splitlines() if not line.startswith("==")]
lines = [json.loads(line) for line in own if line.startswith("{")]  # (== lines: valgrind's)
acc = [x for x in lines if x.get("msg") == "access"]
ok(lines and len(lines) == len(own) and acc and
   {"method", "route", "status", "latency_ms", "batch_size"} <= set(acc[-1]),
   "--log-format json: every log line is a JSON object; access lines carry method, route, "
   "status, latency, batch size", acc[-1:] if acc else lines[:3])
srv.stop()
s = socket.socket()
s.bind(("127.0.0.1", 0))
dead = s.getsockname()[1]
s.close()
hc = subprocess.run(WRAPPER + [BIN, "--healthcheck", "--port", str(dead)], capture_output=True)
ok(hc.returncode == 1, "--healthcheck against nothing: exit 1")
r = subprocess.run([BIN, "--model", "x=/nonexistent/dir", "--port", "0"], capture_output=True,
                   timeout=30 * SLOW)
ok(r.returncode == 1 and b"/nonexistent/dir" in r.stderr,
   "a model that fails to load at start-up: exit 1, naming the directory", r.stderr[-300:])
r = subprocess.run([BIN, "--port", "banana"], capture_output=True)
ok(r.returncode == 2 and b"--port" in r.stderr, "bad option: exit 2 naming it")
r = subprocess.run([BIN, "--help"], capture_output=True)
ok(r.returncode == 0 and b"--max-batch-tokens" in r.stdout and b"ELECTRA_" in r.stdout,
   "--help prints every option")
done()
