"""electra-server's memory and probes under floods: request bodies and
answers in flight are bounded by --max-bytes-in-flight (a body that would
pass it is 503 before it is read, the JSON error with Retry-After), so many
connections sending large bodies keep the resident memory under the bound
docs/API.md states; --max-connections-per-client defaults to 256; the probe
port (--health-port) answers /health, /ready and /metrics while the API port
is full. Each check fails on a server without these limits."""
import json
import os
import re
import select
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import (BIGGER, BIN, SLOW, SMALL, Server, done, make_models, ok, scratch,  # noqa: E402
                        status_line)

work = scratch("electra-e2e-memory-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "slow": ["--arch", "pretraining", "--seed", "2"] + BIGGER,
})
MIB = 1 << 20
WEIGHT = 40         # a body's bytes count 40 times (docs/API.md)
BUDGET = 256        # MiB, --max-bytes-in-flight's default


def bound_mib(srv, n_conn):
    """docs/API.md's bound on what requests add to an idle server, in MiB:
    --max-bytes-in-flight + 64 KiB a connection + 16 x --max-body-bytes a
    HTTP thread (the part of a parse above its body's weight)."""
    threads = int(re.search(rb"http threads (\d+)", srv.log()).group(1))
    return BUDGET + n_conn * 64 / 1024.0 + threads * 16


def proc_kb(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def metric(srv, name):
    for line in srv.get("/metrics")[2].decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def head(path, length, ctype=b"application/json", extra=b""):
    return (b"POST " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Type: " + ctype + b"\r\n" + extra
            + b"Content-Length: %d\r\n\r\n" % length)


def read_answer(s, timeout=5.0):
    """One HTTP answer from s (head and body as far as Content-Length says)."""
    s.settimeout(timeout * SLOW)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
            h, sep, rest = out.partition(b"\r\n\r\n")
            if sep:
                n = [int(l.split(b":")[1]) for l in h.split(b"\r\n") if l.lower().startswith(b"content-length:")]
                if n and len(rest) >= n[0]:
                    break
    except OSError:
        pass
    return out


def headers_of(raw):
    h = {}
    for line in raw.partition(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
        k, _, v = line.decode("latin-1").partition(":")
        h[k.strip().lower()] = v.strip()
    return h


def body_json(raw):
    try:
        return json.loads(raw.partition(b"\r\n\r\n")[2])
    except ValueError:
        return None


def section_bodies():
    """900 connections each sending a 1 MiB /score body at once."""
    n_conn = 900
    # per-client off: the flood stands for many clients; the budget is what bounds it
    srv = Server([("disc", M["disc"])], ["--max-connections-per-client", "0", "--no-checker"],
                 workdir=work, log_name="bodies.log").start()
    time.sleep(0.5)
    base = proc_kb(srv.proc.pid, "VmRSS")
    text = "the cat sat on the mat " * 45000
    body = json.dumps({"text": text}).encode()
    body = body[:-2] + b" " * (MIB - len(body)) + body[-2:]  # {"text": "..."  ...  } = 1 MiB
    assert len(body) == MIB
    socks = []
    for _ in range(n_conn):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10 * SLOW)
        s.sendall(head(b"/score", MIB))
        socks.append(s)
    # every header is in once the bodies held and the refusals add up to n_conn
    deadline = time.time() + 20 * SLOW
    while time.time() < deadline:
        held, nref = metric(srv, "electra_bytes_in_flight"), metric(srv, "electra_requests_refused_memory_total")
        if held is None or nref is None or held / (WEIGHT * MIB) + nref >= n_conn:
            break
        time.sleep(0.2)
    # the refused ones have their answer, before any byte of the body was sent
    readable = set()
    while time.time() < deadline and nref is not None and len(readable) < nref:
        readable |= set(select.select(socks, [], [], 0.5)[0])
    readable |= set(select.select(socks, [], [], 0.5)[0])
    refused = [s for s in socks if s in readable]
    taken = [s for s in socks if s not in readable]
    for s in taken:
        try:
            s.sendall(body[:-1])  # all but the last byte: every taken body is held at once
        except OSError:
            pass
    time.sleep(1.0)
    peak = proc_kb(srv.proc.pid, "VmHWM")
    grown_mib = (peak - base) / 1024.0
    bound = bound_mib(srv, n_conn)
    ok(grown_mib < bound, "%d connections x 1 MiB /score bodies: resident memory grew %.0f MiB at "
       "peak, under the stated bound %.0f MiB (%d refused, %d taken)"
       % (n_conn, grown_mib, bound, len(refused), len(taken)), (base, peak))
    most = BUDGET // WEIGHT
    ok(0 < len(taken) <= most and len(refused) >= n_conn - most,
       "at most --max-bytes-in-flight / (40 x 1 MiB) = %d bodies are taken, the rest refused "
       "before their body is sent" % most, (len(taken), len(refused)))
    answers = [read_answer(s, 2) for s in refused[:50]]
    good = [a for a in answers if status_line(a) == 503 and headers_of(a).get("retry-after") == "1"
            and (body_json(a) or {}).get("error", {}).get("type") == "unavailable"
            and "--max-bytes-in-flight" in body_json(a)["error"]["message"]]
    ok(len(good) == len(answers) and answers,
       "a refused body gets the JSON 503 unavailable with Retry-After: 1, naming --max-bytes-in-flight",
       answers[:1])
    held = metric(srv, "electra_bytes_in_flight")
    ok(held is not None and held == len(taken) * WEIGHT * MIB,
       "/metrics electra_bytes_in_flight counts the bodies being received, 40 times", (held, len(taken)))
    refused_total = metric(srv, "electra_requests_refused_memory_total")
    ok(refused_total is not None and refused_total >= len(refused),
       "/metrics electra_requests_refused_memory_total counts the refusals", refused_total)
    for s in taken:
        try:
            s.sendall(body[-1:])
        except OSError:
            pass
    sts = [status_line(read_answer(s, 30)) for s in taken]
    ok(all(st in (200, 422) for st in sts), "the taken bodies are all answered (200 or 422)",
       sorted(set(map(str, sts))))
    peak = proc_kb(srv.proc.pid, "VmHWM")
    ok((peak - base) / 1024.0 < bound, "parsing and answering them too: the peak stays under the "
       "bound (%.0f MiB)" % ((peak - base) / 1024.0), (base, peak))
    for s in socks:
        s.close()
    time.sleep(0.5)
    ok(metric(srv, "electra_bytes_in_flight") == 0, "once answered, nothing is held")
    st, _, j = srv.post("/score", {"text": "hello world"})
    ok(st == 200, "after the flood a request is served", st)
    srv.stop()


def section_queue():
    """Parsed requests waiting in the queue stay within the budget."""
    n_req = 40
    srv = Server([("slow", M["slow"])], ["--no-checker", "--max-batch-size", "1",
                                         "--max-connections-per-client", "0"],
                 env={"EL_TEST_BATCH_US_PER_TOKEN": "3000"}, workdir=work,
                 log_name="queue.log").start()
    time.sleep(0.5)
    base = proc_kb(srv.proc.pid, "VmRSS")
    text = "the cat sat on the mat " * 45000
    data = json.dumps({"text": text, "truncate": True}).encode()
    socks = []
    for _ in range(n_req):
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=60 * SLOW)
        s.sendall(head(b"/score", len(data)))
        socks.append(s)
    time.sleep(1.0)
    for s in socks:
        try:
            s.sendall(data)  # a refused one may be closed already
        except OSError:
            pass
    time.sleep(6.0)  # a batch of 512 tokens takes 1.5 s: most of them wait, parsed
    peak = proc_kb(srv.proc.pid, "VmHWM")
    bound = bound_mib(srv, n_req)
    ok((peak - base) / 1024.0 < bound, "%d x 1 MiB /score bodies (truncate) waiting for slow "
       "batches: resident memory grew %.0f MiB at peak, under the bound %.0f MiB"
       % (n_req, (peak - base) / 1024.0, bound), (base, peak))
    sts = [status_line(read_answer(s, 120)) for s in socks]
    ok(sts.count(200) >= 1 and sts.count(200) + sts.count(503) == n_req,
       "each is answered 200 or refused 503 (%d served)" % sts.count(200), sorted(map(str, sts)))
    for s in socks:
        s.close()
    srv.stop()


def section_chunked():
    """A chunked body is held as it arrives; one that would pass the budget is
    read and dropped, and answered 503."""
    srv = Server([("disc", M["disc"])],
                 ["--max-body-bytes", "65536", "--max-response-bytes", "65536",
                  "--max-bytes-in-flight", "4000000", "--no-checker"],
                 workdir=work, log_name="chunked.log").start()
    a = socket.create_connection(("127.0.0.1", srv.port), timeout=10 * SLOW)
    a.sendall(head(b"/score", 60000))
    a.sendall(b"{" + b" " * 50000)
    time.sleep(0.3)
    b = socket.create_connection(("127.0.0.1", srv.port), timeout=10 * SLOW)
    b.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    doc = b'{"text": "hello world"' + b" " * 59970 + b"}"
    for i in range(0, len(doc), 10000):
        part = doc[i:i + 10000]
        b.sendall(b"%x\r\n" % len(part) + part + b"\r\n")
    b.sendall(b"0\r\n\r\n")
    got = read_answer(b)
    ok(status_line(got) == 503 and (body_json(got) or {}).get("error", {}).get("type") == "unavailable",
       "a chunked body growing past what is left of --max-bytes-in-flight: 503 once read", got[:120])
    c = socket.create_connection(("127.0.0.1", srv.port), timeout=10 * SLOW)
    c.sendall(head(b"/score", 60000))
    got = read_answer(c)
    ok(status_line(got) == 503, "a Content-Length past what is left: 503 before the body", got[:60])
    a.sendall(b" " * 9999 + b"}")
    got = read_answer(a)
    ok(status_line(got) == 400, "the body holding the budget is still read and answered", got[:60])
    for s in (a, b, c):
        s.close()
    st, _, j = srv.post("/score", {"text": "hello world"})
    ok(st == 200, "then a request fits again", st)
    srv.stop()


def section_options():
    r = subprocess.run([BIN, "--model", "d=" + M["disc"], "--max-bytes-in-flight", "40000000"],
                       capture_output=True, text=True, timeout=30)
    ok(r.returncode == 2 and "--max-bytes-in-flight" in r.stderr and "--max-body-bytes" in r.stderr,
       "a budget below 40 x --max-body-bytes is refused (exit 2)",
       (r.returncode, r.stderr))
    h = subprocess.run([BIN, "--help"], capture_output=True, text=True).stdout
    ok("--max-bytes-in-flight" in h and "--health-port" in h and "(256; 0 = no limit" in h,
       "--help lists --max-bytes-in-flight, --health-port and the per-client default 256")


def section_per_client():
    """--max-connections-per-client defaults to 256."""
    srv = Server([("disc", M["disc"])], ["--no-checker"], workdir=work,
                 log_name="perclient.log").start()
    time.sleep(0.5)
    held = [socket.create_connection(("127.0.0.1", srv.port), timeout=5) for _ in range(256)]
    time.sleep(0.3)
    try:
        c = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        c.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        extra = c.recv(100)
        c.close()
    except OSError:
        extra = b""
    ok(extra == b"", "by default a 257th connection from one address is closed at once", extra[:40])
    for h in held:
        h.close()
    srv.stop()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def probe(port, path, timeout=2.0):
    t0 = time.time()
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = read_answer(s, timeout)
        s.close()
    except OSError:
        got = b""
    return status_line(got), time.time() - t0, got


def section_probes():
    """A flood of idle connections fills the API port; the probe port answers."""
    hp = free_port()
    srv = Server([("disc", M["disc"])],
                 ["--health-port", str(hp), "--max-connections", "50",
                  "--max-connections-per-client", "0", "--header-timeout", "20", "--no-checker"],
                 workdir=work, log_name="probes.log").start()
    time.sleep(0.5)
    flood = []
    for _ in range(2000):
        try:
            flood.append(socket.create_connection(("127.0.0.1", srv.port), timeout=2))
        except OSError:
            pass
    time.sleep(0.5)
    st, dt, _ = probe(srv.port, b"/health", 1.0)
    ok(st is None, "the flood fills the API port: GET /health there is refused", st)
    times = []
    for path, want in ((b"/health", 200), (b"/ready", 200), (b"/v2/health/live", 200),
                       (b"/v2/health/ready", 200), (b"/metrics", 200)):
        st, dt, got = probe(hp, path)
        times.append(dt)
        ok(st == want and dt < 0.5 * SLOW, "under the flood the probe port answers GET %s %d in "
           "%.3f s" % (path.decode(), want, dt), (st, got[:100]))
    st, dt, got = probe(hp, b"/score")
    ok(st == 404 and (body_json(got) or {}).get("error", {}).get("type") == "not_found",
       "the probe port serves nothing else: /score is the JSON 404", got[:100])
    r = subprocess.run([BIN, "--healthcheck", "--port", str(srv.port), "--health-port", str(hp)],
                       capture_output=True, text=True, timeout=30)
    ok(r.returncode == 0, "--healthcheck probes the probe port", r.stderr)
    for s in flood:
        s.close()
    time.sleep(0.3)
    srv.signal(15)
    time.sleep(0.2)
    st, dt, got = probe(hp, b"/ready")
    ok(st in (503, None), "draining: the probe port says /ready 503 (or is closed once drained)", st)
    srv.stop()


for fn in (section_options, section_bodies, section_queue, section_chunked, section_per_client,
           section_probes):
    print("# " + (fn.__doc__ or fn.__name__).strip().splitlines()[0])
    fn()
done()
