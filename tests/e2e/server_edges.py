"""electra-server at the edges a red-team pass found (issue 41): a client
that half-closes (shutdown(SHUT_WR)) after a complete request is answered
while batches run, as on an idle server; SIGTERM does not wait for requests
never fully received (a slow header or body) but answers the complete ones;
a malformed Content-Length gets the documented JSON 400; a body repeating a
key is refused naming it; a number too large for a double is out of range
(422); a text of only whitespace is refused like "". Every check here fails
on the server before these changes.

Sections: `server_edges.py [NAME...]` runs only those (halfclose, drain,
framing, body)."""
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import SLOW, BIGGER, SMALL, Server, done, make_models, ok, scratch, status_line  # noqa: E402

work = scratch("electra-e2e-edges-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "slow": ["--arch", "pretraining", "--seed", "2"] + BIGGER,
    "cls": ["--arch", "cls", "--num-labels", "3", "--seed", "3"] + SMALL,
    "qa": ["--arch", "qa", "--seed", "4"] + SMALL,
})
LONG = "the quick brown fox jumps over the lazy dog " * 50  # 512 pieces with truncate


def post_bytes(path, body, extra=b""):
    return (b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + extra + b"Content-Length: %d\r\n\r\n" % len(body) + body)


def read_all(s, limit=30):
    """Everything the server sends until it closes (or limit seconds)."""
    out = b""
    s.settimeout(limit * SLOW)
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except OSError:
        pass
    return out


def metric(srv, name):
    for line in srv.get("/metrics")[2].decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return -1


def halfclose():
    """1. a half-closed client is answered whether or not batches run"""
    # every batch also sleeps 100 us per token (the runner's test hook), so a
    # request queued behind the load still waits when its client resets,
    # however fast the machine
    srv = Server([("slow", M["slow"])], ["--request-timeout", str(60 * SLOW),
                                         "--http-threads", "4"],
                 env={"EL_TEST_BATCH_US_PER_TOKEN": "100"},
                 workdir=work, log_name="halfclose.log").start()
    body = json.dumps({"text": "a client that half-closes"}).encode()

    def half_closed():
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=30 * SLOW)
        s.sendall(post_bytes("/score", body, b"X-Request-Id: half\r\n"))
        s.shutdown(socket.SHUT_WR)
        out = read_all(s)
        s.close()
        return out

    def answered(out):
        """200 with the whole JSON answer and its X-Request-Id, or what came."""
        head, _, rest = out.partition(b"\r\n\r\n")
        try:
            j = json.loads(rest)
        except ValueError:
            j = None
        good = (status_line(out) == 200 and b"x-request-id: half" in head.lower() and
                j and j.get("tokens"))
        return 200 if good else (status_line(out), out[:120])

    got = answered(half_closed())
    ok(got == 200, "idle server: a complete /score then SHUT_WR is answered 200", got)
    # load: concurrent big requests keep the batcher busy the whole time
    stop = [False]

    def loader():
        while not stop[0]:
            try:
                srv.post("/score", {"texts": [LONG] * 16, "truncate": True}, timeout=60)
            except OSError:
                pass

    ths = [threading.Thread(target=loader) for _ in range(3)]
    for t in ths:
        t.start()
    b0 = metric(srv, "electra_batches_total")
    deadline = time.time() + 20 * SLOW
    while metric(srv, "electra_batches_total") < b0 + 2 and time.time() < deadline:
        time.sleep(0.05)
    got = [answered(half_closed()) for _ in range(8)]
    busy = metric(srv, "electra_batches_total") - b0
    # a client that resets while its request waits behind the load is still
    # dropped unanswered
    c0 = metric(srv, "electra_requests_cancelled_total")
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(post_bytes("/score", json.dumps({"texts": [LONG] * 64, "truncate": True}).encode()))
    time.sleep(0.3 * SLOW)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    deadline = time.time() + 10 * SLOW
    while metric(srv, "electra_requests_cancelled_total") <= c0 and time.time() < deadline:
        time.sleep(0.05)
    c1 = metric(srv, "electra_requests_cancelled_total")
    stop[0] = True
    for t in ths:
        t.join()
    ok(got == [200] * 8 and busy >= 3,
       "under load (%d batches ran meanwhile): 8 of 8 half-closed clients answered 200 with "
       "the whole answer" % busy, got)
    ok(c1 > c0, "a client that resets (RST) is still dropped unanswered "
       "(electra_requests_cancelled_total %d -> %d)" % (c0, c1))
    srv.stop()


def drain():
    """6. SIGTERM closes requests never fully received; the complete ones are answered"""
    srv = Server([("slow", M["slow"])], ["--drain-timeout", "12", "--header-timeout", "60",
                                         "--body-timeout", "60", "--http-threads", "4"],
                 workdir=work, log_name="drain.log").start()
    # a slow header (request line and part of the header) and a slow body
    sh = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    sh.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: applica")
    sb = socket.create_connection(("127.0.0.1", srv.port), timeout=20)
    sb.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 1000\r\n\r\n{\"text\": \"")
    # a complete request in the batcher when the signal comes
    res = []
    th = threading.Thread(target=lambda: res.append(srv.post(
        "/score", {"texts": [LONG] * 64, "truncate": True}, timeout=60)[0]))
    th.start()
    deadline = time.time() + 10 * SLOW
    while metric(srv, "electra_queue_depth") < 1 and time.time() < deadline and not res:
        time.sleep(0.005)
    queued = not res
    t0 = time.time()
    srv.signal(signal.SIGTERM)
    try:
        rc = srv.proc.wait(timeout=15 * SLOW)
    except Exception:  # noqa: BLE001
        rc = None
    dt = time.time() - t0
    th.join()
    ok(rc == 0 and dt < 5, "SIGTERM with a slow header and a slow body open: exit 0 in %.1f s, not "
       "the 12 s --drain-timeout" % dt, (rc, dt))
    ok(queued and res == [200], "the complete request in the batcher was answered 200",
       (queued, res))
    got = [read_all(x, 2) for x in (sh, sb)]
    ok(all(g == b"" for g in got), "the incomplete requests were closed without an answer", got)
    log = srv.log().decode(errors="replace")
    ok(" 499 " in log, "the access log ends them as 499", log[-600:])
    sh.close()
    sb.close()


def framing():
    """5. a malformed Content-Length gets the documented JSON 400"""
    srv = Server([("disc", M["disc"])], ["--http-threads", "2"], workdir=work,
                 log_name="framing.log").start()
    body = b'{"text": "hello world"}'
    cases = [(cl, 400, "invalid_request") for cl in (b"23, 23", b"abc", b"+2", b"23 x", b"")]
    cases.append((b"99999999999999999999999", 413, "payload_too_large"))  # past 64 bits
    for cl, code, kind in cases:
        data = (b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"X-Request-Id: bad-cl\r\nContent-Length: " + cl + b"\r\n\r\n" + body)
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(data)
        out = read_all(s, 5)
        s.close()
        head, _, rest = out.partition(b"\r\n\r\n")
        try:
            j = json.loads(rest)
        except ValueError:
            j = None
        ok(status_line(out) == code and out.count(b"HTTP/1.") == 1 and j and
           j["error"]["type"] == kind and "Content-Length" in j["error"]["message"] and
           b"application/json" in head and b"x-request-id: bad-cl" in head.lower(),
           "Content-Length %r: one JSON %d %s, with its X-Request-Id" % (cl, code, kind),
           out[:400])
    # a slow header on the same thread does not take the answer meant for another
    slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    slow.sendall(b"POST /score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n")
    time.sleep(0.2)
    st, _, j = srv.post("/score", {"text": "still fine"})
    ok(st == 200, "meanwhile a good request is answered 200", (st, j))
    slow.sendall(b"Content-Length: 23\r\n\r\n" + body)
    out = read_all(slow, 5)
    slow.close()
    ok(status_line(out) == 200, "and the slow one, completed, too", out[:200])
    st, _, _ = srv.get("/health")
    ok(st == 200 and srv.proc.poll() is None, "the server is up after them")
    acc = [l for l in srv.log().decode(errors="replace").splitlines() if " access " in l]
    ok(sum(" 400 " in l and "error=invalid_request" in l for l in acc) == 5 and
       sum(" 413 " in l and "error=payload_too_large" in l for l in acc) == 1,
       "the access log records the five 400s and the 413", acc[-8:])
    srv.stop()


def body_rules():
    """7. duplicate keys, numbers out of range, whitespace-only texts"""
    srv = Server([("disc", M["disc"]), ("cls", M["cls"]), ("qa", M["qa"])], workdir=work,
                 log_name="body.log").start()
    h = {"Content-Type": "application/json"}
    st, _, j = srv.post("/score", b'{"text": "first", "text": "second"}', headers=h)
    ok(st == 400 and j and j["error"]["type"] == "invalid_request" and
       '"text"' in j["error"]["message"] and "duplicate" in j["error"]["message"],
       "a repeated key: 400 naming it", (st, j))
    st, _, j = srv.post("/classify", b'{"inputs": [{"text": "a", "text": "b"}]}', headers=h)
    ok(st == 400 and j and "duplicate" in j["error"]["message"],
       "a repeated key inside an input object: 400", (st, j))
    st, _, j = srv.post("/score", b'{"text": "x", "threshold": 1e400}', headers=h)
    ok(st == 422 and j and j["error"]["type"] == "validation_error" and
       "threshold" in j["error"]["message"], "threshold 1e400: 422 out of range", (st, j))
    st, _, j = srv.post("/qa", b'{"question": "q", "context": "c", "top_k": -1e400}', headers=h)
    ok(st == 422 and j and "top_k" in j["error"]["message"], "top_k -1e400: 422 out of range",
       (st, j))
    st, _, j = srv.post("/score", b'{"text": "x", "threshold": "0.5"}', headers=h)
    ok(st == 400 and j and "must be a number" in j["error"]["message"],
       "a threshold that is not a number is still 400", (st, j))
    for text in ["", " ", " \t\n ", "\u00a0\u3000"]:
        st, _, j = srv.post("/score", {"text": text})
        ok(st == 400 and j and "\"text\"" in j["error"]["message"] and
           "no tokens" in j["error"]["message"],
           "/score text %r: 400 (nothing to score)" % text, (st, j))
    st, _, j = srv.post("/tokenize", {"text": "  "})
    ok(st == 400 and j and "no tokens" in j["error"]["message"],
       "/tokenize text of spaces: 400 like \"\"", (st, j))
    st, _, j = srv.post("/score", {"texts": ["fine", "   "]})
    ok(st == 400 and j and "\"texts\"[1]" in j["error"]["message"],
       "/score texts with a blank item: 400 naming it", (st, j))
    st, _, j = srv.post("/score", {"text": "  padded  "})
    ok(st == 200 and j and [w["word"] for w in j["words"]] == ["padded"],
       "a word between spaces is fine", (st, j))
    srv.stop()


SECTIONS = {"halfclose": halfclose, "drain": drain, "framing": framing, "body": body_rules}
for name in sys.argv[1:] or list(SECTIONS):
    fn = SECTIONS[name]
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        ok(False, "%s: the section ran to its end" % name, repr(e)[:600])
done()
