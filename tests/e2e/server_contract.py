"""electra-server's API contract, end to end.

- Paths: a control character in the path, raw or %-escaped (GET /%00, /health%00x,
  POST /score%00), is 400 invalid_request; a route matches only its whole path."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_lib import (SMALL, Server, body_of, done, error_type, make_models, ok,  # noqa: E402
                        scratch, status_line)

work = scratch("electra-e2e-contract-")
M = make_models(os.path.join(work, "models"), {
    "disc": ["--arch", "pretraining", "--seed", "1"] + SMALL,
    "cls": ["--arch", "cls", "--num-labels", "2", "--labels", "negative,positive", "--seed", "2"]
    + SMALL,
    "reg": ["--arch", "cls", "--regression", "--seed", "3"] + SMALL,
    "qa": ["--arch", "qa", "--seed", "4"] + SMALL,
    "gen": ["--arch", "mlm", "--seed", "5"] + SMALL,
})
srv = Server([(n, M[n]) for n in ("disc", "cls", "reg", "qa", "gen")], ["--max-inputs", "4"],
             workdir=work).start()

# ------------------------------------------------------------------ paths
JSON = {"Content-Type": "application/json"}
for method, path in (("GET", "/%00"), ("GET", "/health%00x"), ("GET", "/health%00"),
                     ("GET", "/%1f"), ("GET", "/info%0A"), ("GET", "/metrics%7f"),
                     ("POST", "/score%00"), ("POST", "/score%00/x"), ("GET", "/%00/health")):
    st, _, data = srv.request(method, path, b'{"text": "a"}' if method == "POST" else None,
                              JSON if method == "POST" else None)
    ok(st == 400 and error_type(json.loads(data)) == "invalid_request" and
       "control character" in json.loads(data)["error"]["message"],
       "%s %s: 400 invalid_request (a control character in the path)" % (method, path),
       (st, data[:200]))
for raw_path in (b"/health\x01", b"/\x7f"):
    raw = srv.raw(b"GET " + raw_path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok(status_line(raw) == 400, "GET %r (a raw control byte): 400" % raw_path, raw[:200])
for path, want in (("/health", 200), ("/he%61lth", 200), ("/health?x=%00", 200),
                   ("/healthz", 404), ("/health/", 404), ("//health", 404), ("/health/x", 404),
                   ("/HEALTH", 404)):
    st, _, data = srv.request("GET", path)
    ok(st == want, "GET %s: %d (routes match the whole decoded path; the query is not the path)"
       % (path, want), (st, data[:200]))
st, _, data = srv.request("GET", "/health")
ok(st == 200 and json.loads(data) == {"status": "ok"}, "after them: /health still 200")

rc = srv.stop()
ok(rc == 0, "SIGTERM: exit status 0 (got %s)" % rc)
done()
